"""Positions built by hand and read back as text, for the rule tests.

Points are numbered from the side to move (docs/rules.md §2): it travels 24 → 1,
bears off past point 1, and its bar is "point 25". The helpers are plain
functions (``from tests.rules.positions import make, outcomes``).

* :func:`make` builds a position from ``{point: count}`` dicts; checkers not
  placed are borne off (a harmless place for them).
* :func:`outcomes` is the set of positions the engine's legal plays lead to.
* :func:`expect` computes positions by hand from move notation such as
  ``"8/4* 13/11"``, ``"24/18(2)"``, ``"bar/20/18"`` or ``"6/off"``, applied to
  the board directly (not through the engine), so the two can be compared.

Positions are compared as short readable strings (see :func:`key`), so a
failing set comparison shows which plays are missing or extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from nardy.rules import Play, Position, Step, find_variant

def make(
    variant: str,
    mine: Mapping[int, int] | None = None,
    theirs: Mapping[int, int] | None = None,
    *,
    bar: tuple[int, int] = (0, 0),
    off: tuple[int, int] | None = None,
) -> Position:
    """A position seen by the side to move.

    ``mine`` and ``theirs`` map our point numbers (1..24) to checker counts,
    both given as positive numbers. Unless ``off`` is given, every checker not
    on the board or the bar is borne off.
    """
    mine, theirs = dict(mine or {}), dict(theirs or {})
    points = [0] * 24
    for point, count in mine.items():
        points[point - 1] += count
    for point, count in theirs.items():
        assert points[point - 1] == 0, f"point {point} cannot hold both colours"
        points[point - 1] -= count
    if off is None:
        checkers = find_variant(variant).checkers
        off = (checkers - sum(mine.values()) - bar[0], checkers - sum(theirs.values()) - bar[1])
    return Position(variant, points, bar, off)


def key(points: Sequence[int], bar: Sequence[int], off: Sequence[int]) -> str:
    """A readable canonical form: ``me 24:2 13:5 | opp 1:2 | bar 0-1 | off 0-0``."""
    me = " ".join(f"{p}:{points[p - 1]}" for p in range(24, 0, -1) if points[p - 1] > 0)
    opp = " ".join(f"{p}:{-points[p - 1]}" for p in range(1, 25) if points[p - 1] < 0)
    return f"me {me} | opp {opp} | bar {bar[0]}-{bar[1]} | off {off[0]}-{off[1]}"


def key_of(position: Position) -> str:
    return key(position.points, position.bar, position.off)


def outcomes(position: Position, dice: tuple[int, int]) -> set[str]:
    """The resulting positions of every legal play of ``dice`` (empty set = pass)."""
    plays = position.legal_plays(dice)
    keys = [key_of(play.position) for play in plays]
    assert len(keys) == len(set(keys)), "legal_plays must give one play per resulting position"
    return set(keys)


_TOKEN = re.compile(r"^(bar|\d+\*?)((?:/(?:off|\d+\*?))+)(?:\((\d)\))?$")


def apply(position: Position, notation: str) -> str:
    """Apply hand-written moves to ``position`` without asking the engine.

    Each token moves one checker along the listed stops (``13/10*/9``);
    ``(n)`` repeats the token. A hit must be marked with ``*`` (only in
    variants with hitting); landing on a closed point is an error in the
    test itself.
    """
    hitting = find_variant(position.variant.name).hitting
    points = list(position.points)
    bar = list(position.bar)
    off = list(position.off)
    for token in notation.split():
        match = _TOKEN.match(token)
        assert match, f"bad move notation {token!r}"
        first, rest, times = match.groups()
        stops = [first, *rest.strip("/").split("/")]
        for _ in range(int(times or 1)):
            for source, target in zip(stops, stops[1:]):
                source = source.rstrip("*")
                if source == "bar":
                    assert bar[0] > 0, f"{token}: no checker of ours on the bar"
                    bar[0] -= 1
                else:
                    assert points[int(source) - 1] > 0, f"{token}: no checker of ours on {source}"
                    points[int(source) - 1] -= 1
                if target == "off":
                    off[0] += 1
                    continue
                marked = target.endswith("*")
                index = int(target.rstrip("*")) - 1
                occupant = points[index]
                if hitting and occupant == -1:
                    assert marked, f"{token}: lands on a blot, write the hit as {target}*"
                    points[index] = 1
                    bar[1] += 1
                else:
                    assert not marked, f"{token}: {target} is no blot to hit"
                    assert occupant >= 0, f"{token}: {target} is held by the opponent"
                    points[index] += 1
    return key(points, bar, off)


def expect(position: Position, *plays: str) -> set[str]:
    """The set of positions that the hand-written ``plays`` lead to."""
    return {apply(position, play) for play in plays}


def step_text(step: Step) -> str:
    source = "bar" if step.source == 25 else str(step.source)
    target = "off" if step.target == 0 else str(step.target)
    return f"{source}/{target}{'*' if step.hit else ''}"


def steps_text(steps: Iterable[Step] | Play) -> str:
    """``Step``s written as ``"8/4* 4/2"`` in the order given."""
    if isinstance(steps, Play):
        steps = steps.steps
    return " ".join(step_text(s) for s in steps)


def sources(steps: Iterable[Step]) -> set[int]:
    return {s.source for s in steps}


def targets(steps: Iterable[Step]) -> set[int]:
    return {s.target for s in steps}
