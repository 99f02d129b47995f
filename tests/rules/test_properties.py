"""Property tests of the move generator over positions reached by random play.

Every variant is played from its start with random dice and random legal
plays (``random.Random(seed)``, the board turned after each ply), and at every
ply the engine's answer for the roll thrown is checked against invariants and
against ``reference_plays``, a small independent generator written here from
docs/rules.md alone (breadth-first over single checker moves, sharing no code with
``nardy.rules.movegen``). Hypothesis draws the variant, the seed and the
number of plies, and shrinks a failure to the shortest game that shows it;
``replay`` rebuilds any reported example.

Random play almost never builds a six-point block, so long nardy's block
bans get their own generated positions (``block_position``), and so does
Georgian's stay rule next to a hit in our home (``stay_position``); a
regression test pins the one engine bug these properties found.
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.rules import (
    BAR, MAX_CHECKERS, DICE_ROLLS, NUM_POINTS, OFF, VARIANTS, InvalidPositionError, Play, Position, movegen,
)

VARIANT_NAMES = sorted(name for name in VARIANTS if not VARIANTS[name].pinning)
"""The variants this file's reference generator knows; pins have theirs in tests/rules/test_plakoto.py."""
LONG_VARIANTS = [name for name in VARIANT_NAMES if VARIANTS[name].board == "long"]
REFERENCE_VARIANTS = [name for name in VARIANT_NAMES if not VARIANTS[name].first_checker_away]
"""The variants :func:`reference_plays` covers: fevga has its own generator (tests/rules/fevga_reference.py)."""

# ---------------------------------------------------------------- random play


@dataclass(frozen=True)
class Walk:
    """A reproducible random game: ``plies`` random plays of ``variant`` from its start."""

    variant: str
    seed: int
    plies: int


@dataclass(frozen=True)
class Ply:
    """One turn of a walk: the position before it, the roll thrown, the engine's plays."""

    position: Position
    dice: tuple[int, int]
    plays: list[Play]


def replay(walk: Walk) -> Iterator[Ply]:
    """The turns of ``walk`` (it stops early when the game ends)."""
    rng = random.Random(walk.seed)
    position = Position.start(walk.variant)
    for _ in range(walk.plies):
        if position.is_game_over():
            return
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(dice)
        yield Ply(position, dice, plays)
        position = (rng.choice(plays).position if plays else position).turned()


# Random games last about 80-110 plies; up to 250 reaches the bear-off of
# most backgammon games and of every long-nardy game.
walks = st.builds(
    Walk,
    variant=st.sampled_from(VARIANT_NAMES),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    plies=st.integers(min_value=1, max_value=250),
)
reference_walks = st.builds(
    Walk,
    variant=st.sampled_from(REFERENCE_VARIANTS),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    plies=st.integers(min_value=1, max_value=250),
)

# ------------------------------------------------- an independent generator
#
# State: (mine, theirs, their_bar). ``mine[i]``: our checkers on point i
# (0 = borne off, 25 = bar); ``theirs[i]``: the opponent's checkers on our
# point i (1..24, index 0 unused), as positive counts.

Key = tuple[int, ...]  # a position as points(24) + bar(2) + off(2)

# Our points in the order the opponent passes them in long nardy: it starts
# on our 12, runs down to our 1, continues on our 24 and finishes on our 13.
OPPONENT_ROUTE = [*range(12, 0, -1), *range(24, 12, -1)]
OPPONENT_HOME = set(range(13, 19))  # its points 1..6


def six_block_banned(position: Position, mine: list[int], theirs: list[int]) -> bool:
    """docs/rules.md §6 and its decision on 001 §1.12: does ``mine`` hold a forbidden run of six points?"""
    rule = position.variant.block_rule
    if rule is None:
        return False
    held = [mine[point] > 0 for point in OPPONENT_ROUTE]
    for first in range(len(OPPONENT_ROUTE) - 5):
        if all(held[first:first + 6]):
            if rule == "behind":
                # "behind": forbidden while an opposing checker has yet to pass the
                # block and the opponent has not brought all its checkers home.
                behind = any(theirs[p] for p in OPPONENT_ROUTE[:first])
                all_home = all(point in OPPONENT_HOME for point in range(1, 25) if theirs[point])
                if behind and not all_home:
                    return True
            else:
                # "ahead": allowed once an opposing checker is past the block,
                # i.e. further along the route, or already borne off.
                passed = position.off[1] > 0 or any(theirs[p] for p in OPPONENT_ROUTE[first + 6:])
                if not passed:
                    return True
    return False


@dataclass(frozen=True)
class Reference:
    """What the rules allow: the most dice playable and the legal resulting positions."""

    max_dice: int
    larger_die_forced: bool
    positions: frozenset[Key]


def reference_plays(position: Position, dice: tuple[int, int]) -> Reference:
    """Every legal resulting position of ``dice``, computed from docs/rules.md §1, §3, §4 and §6.

    Breadth-first: level k holds every state reachable by k single-checker
    moves, with the dice still unused, the number of checkers taken from the
    head (long nardy) and the home points where we hit this turn. A step that
    would leave such a point empty is legal only when no other step can play
    its die (Georgian, 002 as docs/rules.md's decision reads it: per die, when the
    die is played). Every state of every level is a candidate play; the legal
    plays are the candidates that pass the end-of-turn block check and use the
    most dice (the larger die when only one can be played).
    """
    variant = position.variant
    hitting = variant.hitting
    first_roll = position.points[23] == variant.checkers
    head_limit = variant.head_limit
    if head_limit is not None and dice[0] == dice[1] and first_roll and dice[0] in variant.head_exception_doubles:
        head_limit = 2
    mine0 = [position.off[0], *(max(c, 0) for c in position.points), position.bar[0]]
    theirs0 = [0, *(max(-c, 0) for c in position.points)]
    moves = [dice[0]] * 4 if dice[0] == dice[1] else sorted(dice)

    # (mine, theirs, their_bar, dice left, head used, hit-home points, first die)
    State = tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, ...], int, frozenset[int], int]
    start: State = (tuple(mine0), tuple(theirs0), position.bar[1], tuple(moves), 0, frozenset(), 0)

    def steps_of(state: State, die: int) -> list[tuple[State, bool]]:
        """The states one legal step of ``die`` leads to, each with whether it empties a hit-home point."""
        mine_t, theirs_t, their_bar, left, heads, guarded, first_die = state
        rest = list(left)
        rest.remove(die)
        following = []
        sources = [BAR] if mine_t[BAR] else [p for p in range(1, 25) if mine_t[p]]
        for source in sources:
            target = source - die
            hit = False
            if target >= 1:
                if theirs_t[target] >= (2 if hitting else 1):
                    continue  # closed
                hit = theirs_t[target] == 1
            else:
                if any(mine_t[p] for p in range(7, 26)):
                    continue  # not all home: no bearing off
                if target < 0 and any(mine_t[p] for p in range(source + 1, 7)):
                    continue  # an overshoot needs the highest checker
                target = OFF
            used_head = heads + (source == 24 and head_limit is not None)
            if head_limit is not None and used_head > head_limit:
                continue
            mine = list(mine_t)
            theirs = list(theirs_t)
            mine[source] -= 1
            mine[target] += 1
            bar = their_bar
            if hit:
                theirs[target] = 0
                bar += 1
            if variant.block_each_step and six_block_banned(position, mine, theirs):
                continue
            now_guarded = guarded | {target} if variant.hit_home_stay and hit and target <= 6 else guarded
            empties = source in guarded and mine[source] == 0
            following.append(((tuple(mine), tuple(theirs), bar, tuple(rest), used_head, now_guarded,
                               first_die or die), empties))
        return following

    levels: list[set[State]] = [{start}]
    while True:
        following: set[State] = set()
        for state in levels[-1]:
            for die in set(state[3]):
                steps = steps_of(state, die)
                staying = [after for after, empties in steps if not empties]
                following.update(staying if staying else [after for after, _ in steps])
        if not following:
            break
        levels.append(following)

    def allowed(state: State) -> bool:
        mine, theirs = list(state[0]), list(state[1])
        return variant.block_each_step or not six_block_banned(position, mine, theirs)

    max_dice, finals = 0, [start]
    for depth in range(len(levels) - 1, 0, -1):
        candidates = [s for s in levels[depth] if allowed(s)]
        if candidates:
            max_dice, finals = depth, candidates
            break
    larger_die_forced = False
    if max_dice == 1 and dice[0] != dice[1]:
        larger = [s for s in finals if s[6] == max(dice)]
        if larger:
            larger_die_forced = len(larger) < len(finals)
            finals = larger
    positions = frozenset() if max_dice == 0 else frozenset(
        (*(m - t for m, t in zip(s[0][1:25], s[1][1:25])), s[0][BAR], s[2], s[0][OFF], position.off[1])
        for s in finals
    )
    return Reference(max_dice, larger_die_forced, positions)


def block_position(variant: str, seed: int) -> Position:
    """A long-nardy position one move from a six-point block (for the block bans of docs/rules.md §6).

    Random play almost never builds a six-block, so this places the mover on
    five of six consecutive points of the opponent's route, with one to three
    spare checkers one die behind the gap, the rest at random; the opponent
    mostly stands behind the block (the case where it is forbidden). A
    position that already holds a banned block (not reachable in a game) or
    is a first roll is drawn again.
    """
    rng = random.Random(seed)
    while True:
        mine, theirs = [0] * 25, [0] * 25
        first = rng.randint(0, 18)
        block = OPPONENT_ROUTE[first:first + 6]
        gap = rng.choice(block)
        for point in block:
            if point != gap:
                mine[point] = rng.randint(1, 2)
        for _ in range(rng.randint(1, 3)):
            point = gap + rng.randint(1, 6)
            if point <= 24:
                mine[point] += 1
        if sum(mine) > MAX_CHECKERS:
            continue
        while sum(mine) < MAX_CHECKERS:
            mine[rng.choice([p for p in range(1, 25) if p != gap and (mine[p] or rng.random() < 0.3)])] += 1
        free = [p for p in range(1, 25) if not mine[p]]
        behind = [p for p in OPPONENT_ROUTE[:first] if not mine[p]]
        pool = behind if behind and rng.random() < 0.75 else free
        for _ in range(MAX_CHECKERS):
            theirs[rng.choice(pool)] += 1
        position = Position(variant, [mine[p] - theirs[p] for p in range(1, 25)])
        if position.points[23] != position.variant.checkers and not six_block_banned(position, mine, theirs):
            return position


def stay_position(seed: int) -> Position:
    """A Georgian position with a hit in our home one die away (for the stay rule of docs/rules.md §4).

    Random play seldom reaches the stay rule's exception, where no other
    checker can play the die after the hit, so this places one or two opposing
    blots in our home, one or two of our checkers a die above each, a few more
    of ours anywhere, and the opponent's other checkers in points of two or
    three at random, which often leave our other checkers nothing to play.
    """
    rng = random.Random(seed)
    while True:
        mine, theirs = [0] * 25, [0] * 25
        blots = rng.sample(range(1, 7), rng.randint(1, 2))
        for blot in blots:
            theirs[blot] = 1
        for blot in blots:
            for _ in range(rng.randint(1, 2)):
                point = blot + rng.randint(1, 6)
                if point <= 24 and not theirs[point]:
                    mine[point] += 1
        for _ in range(rng.randint(0, 4)):
            mine[rng.choice([p for p in range(1, 25) if not theirs[p]])] += 1
        left = MAX_CHECKERS - len(blots)
        while left >= 2:
            free = [p for p in range(1, 25) if not mine[p] and not theirs[p]]
            if not free:
                break
            count = min(rng.randint(2, 3), left)
            theirs[rng.choice(free)] = count
            left -= count
        points = [mine[p] - theirs[p] for p in range(1, 25)]
        if any(mine):
            return Position("georgian", points, (0, 0), (MAX_CHECKERS - sum(mine), MAX_CHECKERS - sum(theirs)))


def key_of(position: Position) -> Key:
    return (*position.points, *position.bar, *position.off)


def checker_totals(position: Position) -> tuple[int, int]:
    points = position.points
    return (
        sum(c for c in points if c > 0) + position.bar[0] + position.off[0] + position.pinned.count(1),
        -sum(c for c in points if c < 0) + position.bar[1] + position.off[1] + position.pinned.count(-1),
    )


def describe(ply: Ply) -> str:
    p = ply.position
    return f"{p.variant.name} points={list(p.points)} bar={list(p.bar)} off={list(p.off)} dice={ply.dice}"


# ------------------------------------------------------------------- tests

# About 55 plies per walk on average: 150 walks are some 8,000 turns per test.
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(walks)
def test_plays_conserve_checkers_and_pips(walk: Walk) -> None:
    """Every play keeps each side's checkers (15, 3 in hypergammon) and moves exactly the pips its steps say.

    Checkers: board + bar + off is the variant's number for both sides after every play (the
    engine builds play positions without re-validating them). Pips: the
    mover's count falls by exactly the sum of its steps (bar = 25, off = 0),
    so it never grows; the opponent's count is unchanged in long nardy (no
    hitting) and in hitting variants grows by exactly the point of each hit
    (a checker hit on our point t had 25 - t pips to go and now has 25).
    """
    for ply in replay(walk):
        mover_pips, opponent_pips = ply.position.pip_counts()
        for play in ply.plays:
            after = play.position
            assert checker_totals(after) == (after.variant.checkers,) * 2, describe(ply)
            assert min(*after.bar, *after.off) >= 0, describe(ply)
            if not after.variant.hitting:
                assert after.bar == (0, 0), describe(ply)
            moved = sum(step.source - step.target for step in play.steps)
            hit_pips = sum(step.target for step in play.steps if step.hit)
            new_mover, new_opponent = after.pip_counts()
            assert moved > 0, (describe(ply), play.steps)
            assert new_mover == mover_pips - moved, (describe(ply), play.steps)
            assert new_opponent == opponent_pips + hit_pips, (describe(ply), play.steps)
            if not after.variant.hitting:
                assert hit_pips == 0


@SETTINGS
@given(reference_walks)
def test_plays_match_an_independent_generator(walk: Walk) -> None:
    """The engine's plays are exactly the legal plays worked out independently.

    First the maximum-dice rule on its own: every play uses the greatest
    number of dice that any legal sequence can use (and the larger die when
    only one die of a non-double can be played), as counted by
    ``reference_plays``; a roll with no play is a pass there too. Then the
    whole answer: the same set of resulting positions.
    """
    for ply in replay(walk):
        reference = reference_plays(ply.position, ply.dice)
        used = {len(play.steps) for play in ply.plays} or {0}
        assert used == {reference.max_dice}, f"{describe(ply)}: engine uses {used} dice, rules allow {reference.max_dice}"
        if reference.larger_die_forced:
            assert all(play.steps[0].die == max(ply.dice) for play in ply.plays), describe(ply)
        ours = {key_of(play.position) for play in ply.plays}
        assert ours == reference.positions, (
            f"{describe(ply)}: only engine {sorted(ours - reference.positions)}; "
            f"only reference {sorted(reference.positions - ours)}"
        )


@SETTINGS
@given(walks)
def test_legal_positions_are_the_plays_positions(walk: Walk) -> None:
    """``legal_positions`` and ``legal_rows`` (the bots' quick paths, which skip the steps)
    answer the positions of ``legal_plays``, in the same order, and nothing for a pass;
    a row makes its position again; ``can_play`` says whether there is a play at all."""
    for ply in replay(walk):
        positions = ply.position.legal_positions(ply.dice)
        assert positions == [play.position for play in ply.plays], describe(ply)
        assert ply.position.legal_rows(ply.dice) == [p.row() for p in positions], describe(ply)
        assert all(Position.from_row(p.variant, p.row()) == p for p in positions), describe(ply)
        assert ply.position.can_play(ply.dice) == bool(ply.plays), describe(ply)


def test_a_row_is_checked_like_any_new_position() -> None:
    start = Position.start("backgammon")
    assert start.row() == start.points + start.bar + start.off
    with pytest.raises(InvalidPositionError):
        Position.from_row(start.variant, start.row()[:-1])
    sixteen = list(start.row())
    sixteen[NUM_POINTS + 2] = 1  # one checker borne off besides the fifteen on the board
    with pytest.raises(InvalidPositionError):
        Position.from_row(start.variant, sixteen)


@given(st.sampled_from(VARIANT_NAMES), st.lists(st.integers(-15, 15), min_size=24, max_size=24))
def test_a_board_turned_and_its_pips_follow_the_opponent_s_numbering(variant: str, points: list[int]) -> None:
    """The quick forms of turning a board and counting its pips agree with their definitions: our point
    p is the opponent's ``opponent_point(p)`` (backgammon counts 25 − p, long nardy half a board on), with
    the signs swapped, and an opponent's checker there is that many pips from home."""
    topology = VARIANTS[variant].topology
    expected = [0] * 24
    for point, count in enumerate(points, start=1):
        expected[topology.opponent_point(point) - 1] = -count
    assert topology.flip_points(tuple(points)) == tuple(expected)
    bar = (2, 3)
    mover = 25 * bar[0] + sum(point * count for point, count in enumerate(points, start=1) if count > 0)
    opponent = 25 * bar[1] + sum(topology.opponent_point(point) * -count
                                 for point, count in enumerate(points, start=1) if count < 0)
    assert topology.pip_counts(tuple(points), bar) == (mover, opponent)


@SETTINGS
@given(walks)
def test_plays_are_distinct_and_their_steps_replay(walk: Walk) -> None:
    """Plays are one per resulting position, and each play's steps reproduce it.

    No two plays of a roll leave the same position (docs/rules.md §1: a play is a
    distinct resulting position); ``pos.after(play.steps)`` and
    ``pos.play(dice, play.steps)`` both give ``play.position``, so the steps
    shown to a player are a real order of the play; and turning a position
    twice gives it back.
    """
    for ply in replay(walk):
        position = ply.position
        assert position.turned().turned() == position, describe(ply)
        keys = [key_of(play.position) for play in ply.plays]
        assert len(keys) == len(set(keys)), describe(ply)
        for play in ply.plays:
            assert position.after(play.steps) == play.position, (describe(ply), play.steps)
            assert len(play.steps) <= (4 if ply.dice[0] == ply.dice[1] else 2)
        if ply.plays:
            chosen = ply.plays[len(ply.plays) // 2]
            assert position.play(ply.dice, chosen.steps) == chosen.position, describe(ply)


@settings(max_examples=40, deadline=None)
@given(st.builds(Walk, variant=st.sampled_from(REFERENCE_VARIANTS),
                 seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 200)))
def test_every_roll_of_a_reached_position(walk: Walk) -> None:
    """At the last position of a walk, all 21 rolls agree with the independent generator.

    The other tests see one roll per position (the one thrown); this one
    covers every roll, doubles included, where the game happens to stand.
    """
    last = None
    for last in replay(walk):
        pass
    assert last is not None
    position = last.position
    for dice in DICE_ROLLS:
        ours = {key_of(play.position) for play in position.legal_plays(dice)}
        assert ours == reference_plays(position, dice).positions, describe(Ply(position, dice, []))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([name for name in LONG_VARIANTS if name in REFERENCE_VARIANTS]), st.integers(0, 2**32 - 1))
def test_six_block_bans_match_an_independent_generator(variant: str, seed: int) -> None:
    """Near a six-point block, all 21 rolls agree with the independent generator.

    Covers what random play does not reach: traditional and tournament ban a
    block no opposing checker has passed (at the end of the turn, or after
    every step), bolshie bans a block while an opposing checker is behind it. In these positions the ban changes the answer for most rolls,
    and tournament differs from traditional for about one roll in seven.
    """
    position = block_position(variant, seed)
    for dice in DICE_ROLLS:
        ours = {key_of(play.position) for play in position.legal_plays(dice)}
        reference = reference_plays(position, dice).positions
        assert ours == reference, (
            f"{describe(Ply(position, dice, []))}: only engine {sorted(ours - reference)}; "
            f"only reference {sorted(reference - ours)}"
        )


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_stay_rule_matches_an_independent_generator(seed: int) -> None:
    """Next to a hit in our home, all 21 rolls agree with the independent generator.

    002: «если твоя шашка бьёт шашку соперника в своём доме, она остаётся на
    этом пункте до конца хода ... Исключение одно: если кубик иначе никак не
    сыграть, шашка может уйти» — read per die, when the die is played. Covers
    what random play seldom reaches: the hitter moving on because nothing
    else can play the die, for a non-double and within a double. Read this
    way the rule keeps 002's promise «это правило никогда не лишает тебя
    хода»: every roll plays as many dice as in backgammon, which has no such rule.
    """
    position = stay_position(seed)
    backgammon = Position("backgammon", position.points, position.bar, position.off)
    for dice in DICE_ROLLS:
        plays = position.legal_plays(dice)
        ours = {key_of(play.position) for play in plays}
        reference = reference_plays(position, dice).positions
        assert ours == reference, (
            f"{describe(Ply(position, dice, []))}: only engine {sorted(ours - reference)}; "
            f"only reference {sorted(reference - ours)}"
        )
        dice_used = {len(play.steps) for play in plays} or {0}
        assert dice_used == ({len(play.steps) for play in backgammon.legal_plays(dice)} or {0}), describe(
            Ply(position, dice, plays)
        )


def test_reference_generator_agrees_at_the_start() -> None:
    """The independent generator reproduces the known opening counts (447 in backgammon, 22/21 in long nardy).

    A check on the checker: it must be right where the answer is known.
    """
    expected = {"backgammon": 447, "dave": 447, "georgian": 447,
                "long-traditional": 22, "long-tournament": 22, "long-bolshie": 21}
    for name, count in expected.items():
        start = Position.start(name)
        assert sum(len(reference_plays(start, dice).positions) for dice in DICE_ROLLS) == count, name


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_last_checker_is_borne_off_with_the_larger_die(variant: str) -> None:
    """The play that bears off the last checker uses the larger die, and ``play`` accepts its steps.

    docs/rules.md §1: when only one die of a non-double can be played and either
    could, the larger is played. One checker left on point 1, roll 5-2: the
    only play is 1/off with the 5. Found by the walks above: the engine once
    listed ``Step(1, 0, die=2)`` here (the first order it met), so
    ``pos.play((5, 2), play.steps)`` rejected a play ``legal_plays`` had
    offered, on the game's last move.
    """
    checkers = VARIANTS[variant].checkers
    points = [0] * 24
    points[0] = 1
    points[23 if VARIANTS[variant].hitting else 12] = -checkers  # the opponent at home
    position = Position(variant, points, (0, 0), (checkers - 1, 0))
    [play] = position.legal_plays((5, 2))
    assert play.steps[0].die == 5
    assert position.play((5, 2), play.steps) == play.position


@settings(max_examples=15, deadline=None)
@given(walks)
def test_remembered_sequences_are_the_search_itself(walk: Walk) -> None:
    """A position remembers its legal sequences per roll (a memo for the server's repeated
    questions in one turn): the answers are the engine's search, unchanged by asking twice,
    and the memo takes no part in equality or hashing."""
    for ply in replay(walk):
        position, dice = ply.position, ply.dice
        searched = [c.steps for c in movegen.search(
            position.variant, position.points, position.bar, position.off, dice, every_sequence=True,
        ) if c.steps]
        fresh = Position(position.variant, position.points, position.bar, position.off)
        assert position.legal_sequences(dice) == searched
        assert position.legal_sequences(dice) == searched
        assert fresh == position and hash(fresh) == hash(position)
        if searched:
            first = searched[0]
            assert position.next_steps(dice, first[:1]) == fresh.next_steps(dice, first[:1])
            assert position.play(dice, first) == position.after(first)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_positions_survive_pickling(name: str) -> None:
    """A position sent to another process (a pool of bots) comes back equal, its variant the same singleton."""
    position = Position.start(name)
    play = position.legal_plays((6, 5))[0]
    for original in (position, play.position.turned()):
        back = pickle.loads(pickle.dumps(original))
        assert back == original and hash(back) == hash(original) and back.variant is original.variant
