"""Tournament pairing and standings: pure functions over player ids, no storage and no clock.

Three formats (``docs/tournaments.md``):

* **knockout**: single elimination. :func:`knockout_first_round` places the
  seeds in the standard bracket (1 meets the last seed, 2 the second last, and
  the top two can only meet in the final); when the field is not a power of
  two the top seeds get the byes. :func:`knockout_next_round` pairs the
  winners of neighbouring matches.
* **swiss**: a fixed number of rounds; :func:`swiss_round` pairs players of
  equal or close score, never twice the same pair while the round can be
  paired without it, and gives an odd field's bye to the lowest-ranked player
  who has not had one.
* **round robin**: :func:`round_robin_rounds`, the circle method; every pair
  meets exactly once, with a bye each round when the field is odd.

A player is an ``int`` (a tournament entry id); a pairing is ``(a, b)`` with
``b`` ``None`` for a bye. :func:`standings` ranks by points (one per match
won, one for a bye), then Buchholz (the sum of the opponents' points), then
Sonneborn-Berger (the sum of the points of the opponents beaten), then seed.

>>> knockout_first_round([1, 2, 3, 4])
[(1, 4), (2, 3)]
>>> knockout_first_round([1, 2, 3])
[(1, None), (2, 3)]
>>> round_robin_rounds([1, 2, 3, 4])
[[(1, 4), (2, 3)], [(3, 1), (4, 2)], [(1, 2), (3, 4)]]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Pairing = tuple[int, int | None]
"""Two players, or one and ``None``: a bye."""

SWISS_SEARCH_LIMIT = 20_000
"""How many partial pairings the Swiss search tries before it accepts a repeat pairing (a cap on the search)."""


@dataclass(frozen=True, slots=True)
class Result:
    """A played (or forfeited) pairing: ``winner`` is one of the two, ``None`` when nobody won (both no-shows)."""

    a: int
    b: int | None
    winner: int | None


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings."""

    player: int
    rank: int
    points: float
    buchholz: float
    sonneborn_berger: float
    wins: int
    losses: int
    byes: int


# ----------------------------------------------------------------- knockout


def bracket_order(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for a power-of-two ``size``: neighbours meet in round one.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket holds a power of two players, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def knockout_first_round(seeded: Sequence[int]) -> list[Pairing]:
    """Round one of a knockout for players in seed order (best first); the top seeds get the byes.

    The bracket has the next power of two places; a place beyond the field is
    a bye for the seed it faces. The pairings come in bracket order, so the
    winners of pairings ``2k`` and ``2k + 1`` meet next (:func:`knockout_next_round`).
    """
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    if len(set(seeded)) != len(seeded):
        raise ValueError("a player is seeded twice")
    size = 1
    while size < len(seeded):
        size *= 2
    order = bracket_order(size)
    places = [seeded[seed - 1] if seed <= len(seeded) else None for seed in order]
    pairings: list[Pairing] = []
    for first, second in zip(places[::2], places[1::2], strict=True):
        assert first is not None  # the better seed of each bracket pair is always in the field
        pairings.append((first, second))
    return pairings


def knockout_next_round(winners: Sequence[int]) -> list[Pairing]:
    """The next knockout round: the winners of the last round's pairings, in order, meet in neighbouring pairs."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError(f"a knockout round after the first pairs an even number of winners, not {len(winners)}")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


def knockout_rounds(players: int) -> int:
    """How many rounds a knockout of ``players`` takes.

    >>> [knockout_rounds(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 3, 3, 4]
    """
    rounds = 0
    while (1 << rounds) < players:
        rounds += 1
    return rounds


# ----------------------------------------------------------------- round robin


def round_robin_rounds(players: Sequence[int]) -> list[list[Pairing]]:
    """Every round of a round robin by the circle method: each pair exactly once, a bye a round if odd.

    The first player stays; the others turn one place a round. Colours (who
    is ``a``) alternate for the fixed player, so nobody is always first.
    """
    if len(players) < 2:
        raise ValueError("a round robin needs at least two players")
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    count = len(ring)
    rounds: list[list[Pairing]] = []
    for number in range(count - 1):
        pairings: list[Pairing] = []
        for i in range(count // 2):
            first, second = ring[i], ring[count - 1 - i]
            if i == 0 and number % 2:
                first, second = second, first
            pairings.append(_with_bye_last(first, second))
        rounds.append(pairings)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _with_bye_last(first: int | None, second: int | None) -> Pairing:
    if first is None:
        assert second is not None
        return second, None
    return first, second


# ----------------------------------------------------------------- swiss


def swiss_rounds(players: int) -> int:
    """The default number of Swiss rounds: enough to single out a winner, ``ceil(log2(players))``, at least one."""
    return max(1, knockout_rounds(players))


def swiss_round(ranked: Sequence[int], history: Iterable[Result]) -> list[Pairing]:
    """The next Swiss round for ``ranked`` (the active players, best first by :func:`standings`).

    An odd field's bye goes to the lowest-ranked player who has had none (if
    all have, the lowest-ranked). The rest are paired top-down: each player
    meets the highest-ranked player left whom they have not met, and the
    search backs up when a later player would be left with only repeats. Only
    when no pairing without repeats exists (or the search passes
    :data:`SWISS_SEARCH_LIMIT` steps) are the fewest repeats accepted, the
    first player left meeting the next.
    """
    players = list(ranked)
    if len(set(players)) != len(players):
        raise ValueError("a player is ranked twice")
    results = list(history)
    met = {frozenset((r.a, r.b)) for r in results if r.b is not None}
    had_bye = {r.a for r in results if r.b is None}
    bye: int | None = None
    if len(players) % 2:
        bye = next((p for p in reversed(players) if p not in had_bye), players[-1])
        players.remove(bye)
    pairs = _pair_without_repeats(players, met)
    if pairs is None:
        pairs = _pair_fewest_repeats(players, met)
    pairings: list[Pairing] = [(a, b) for a, b in pairs]
    if bye is not None:
        pairings.append((bye, None))
    return pairings


def _pair_without_repeats(players: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pairs of ``players`` (in rank order) none of whom met before, by depth-first search; None if none found."""
    steps = 0

    def search(left: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not left:
            return []
        first, rest = left[0], left[1:]
        for index, second in enumerate(rest):
            steps += 1
            if steps > SWISS_SEARCH_LIMIT:
                return None
            if frozenset((first, second)) in met:
                continue
            tail = search(rest[:index] + rest[index + 1:])
            if tail is not None:
                return [(first, second), *tail]
        return None

    return search(players)


def _pair_fewest_repeats(players: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]]:
    """Greedy top-down pairs preferring opponents not met: used only when no repeat-free round exists."""
    left = list(players)
    pairs: list[tuple[int, int]] = []
    while left:
        first = left.pop(0)
        second = next((p for p in left if frozenset((first, p)) not in met), left[0])
        left.remove(second)
        pairs.append((first, second))
    return pairs


# ----------------------------------------------------------------- standings


def standings(seeded: Sequence[int], results: Iterable[Result]) -> list[Standing]:
    """Everyone in ``seeded`` ranked by points, Buchholz, Sonneborn-Berger, then seed (``seeded``'s order).

    A win or a bye is one point (a bye whose ``winner`` is ``None``, a
    withdrawn player's, is none). Buchholz sums the points of every opponent
    met (a bye adds nothing); Sonneborn-Berger sums those of the opponents
    beaten. Equal on all three, the better seed ranks first; ranks are
    1, 2, 3, … without shared places, so a printed table has one order.
    """
    results = list(results)
    points = {p: 0.0 for p in seeded}
    wins = {p: 0 for p in seeded}
    losses = {p: 0 for p in seeded}
    byes = {p: 0 for p in seeded}
    for r in results:
        if r.b is None:
            if r.winner == r.a:
                points[r.a] += 1
                byes[r.a] += 1
            continue
        for player in (r.a, r.b):
            if r.winner == player:
                points[player] += 1
                wins[player] += 1
            else:
                losses[player] += 1
    buchholz = {p: 0.0 for p in seeded}
    sonneborn = {p: 0.0 for p in seeded}
    for r in results:
        if r.b is None:
            continue
        buchholz[r.a] += points[r.b]
        buchholz[r.b] += points[r.a]
        if r.winner == r.a:
            sonneborn[r.a] += points[r.b]
        elif r.winner == r.b:
            sonneborn[r.b] += points[r.a]
    seed = {p: i for i, p in enumerate(seeded)}
    order = sorted(seeded, key=lambda p: (-points[p], -buchholz[p], -sonneborn[p], seed[p]))
    return [
        Standing(p, rank, points[p], buchholz[p], sonneborn[p], wins[p], losses[p], byes[p])
        for rank, p in enumerate(order, start=1)
    ]


def knockout_standings(seeded: Sequence[int], rounds: Sequence[Sequence[Result]]) -> list[int]:
    """A finished (or running) knockout's order: the winner, then by the round each was knocked out in, latest
    first; players knocked out in the same round by seed."""
    out_in: dict[int, int] = {}
    for number, results in enumerate(rounds, start=1):
        for r in results:
            if r.b is None:
                continue
            for player in (r.a, r.b):
                if r.winner != player:
                    out_in[player] = number
    survivors = len(rounds) + 1
    seed = {p: i for i, p in enumerate(seeded)}
    return sorted(seeded, key=lambda p: (-out_in.get(p, survivors), seed[p]))
