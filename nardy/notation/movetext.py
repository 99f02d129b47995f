"""Standard move text, as GNU Backgammon writes it: ``24/18 13/11*``, ``bar/22``, ``6/2(4)``.

A play is written one checker path at a time, ``source/target`` with the
bar as ``bar`` and bearing off as ``off``. A checker that plays several dice
is written once, from where it started to where it stopped (``24/13``),
naming only the intermediate points where it hit (``24/18*/13``). ``*``
marks a hit; identical paths are written once with a count (``13/7(2)``);
paths are listed from the highest source down, the bar first; a play with no
move is ``pass``. Long nardy uses the same text, without bar or hits;
plakoto, without a bar, marks a checker that pins as a hit (``24/18*``).

Reading goes the other way round: :func:`parse_play` applies the moves the
text describes and returns the legal play that leaves the same position, so
any order of paths, combined or split moves and a missing ``*`` are accepted.

>>> from nardy.rules import Position
>>> start = Position.start("backgammon")
>>> [format_steps(p.steps) for p in start.legal_plays((6, 5)) if "24/13" in format_steps(p.steps)]
['24/13']
>>> format_steps(parse_play("13/11 24/18", start, (6, 2)).steps)
'24/18 13/11'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from nardy.notation.errors import NotationError
from nardy.rules import BAR, NUM_POINTS, OFF, IllegalPlayError, Play, Position, Step

PASS: Final = "pass"

_TOKEN: Final = re.compile(
    r"(?P<source>bar|\d{1,2})(?P<rest>(?:/(?:\d{1,2}|off)\*?)+)(?:\((?P<count>\d+)\))?",
    re.IGNORECASE,
)
_LANDING: Final = re.compile(r"/(\d{1,2}|off)\*?", re.IGNORECASE)


@dataclass
class _Path:
    """One checker's way through a play: where it started, each landing, and which landings hit."""

    source: int
    landings: list[int] = field(default_factory=list)
    hits: list[bool] = field(default_factory=list)

    def stops(self) -> tuple[int, ...]:
        """The points written after the source: the landings where it hit, then where it stopped."""
        hit_on_the_way = (point for point, hit in zip(self.landings[:-1], self.hits) if hit)
        return (*hit_on_the_way, self.landings[-1])


# ----- writing


def format_steps(steps: Iterable[Step]) -> str:
    """The standard text of a play given as steps (``pass`` when there are none).

    As gnubg does: a step that starts where an earlier path stopped
    continues that path; identical paths are counted; a point hit is marked
    ``*`` once, the first time the text names it, so two checkers pointing
    on a blot read ``6/1*(2)`` and ``8/2* 6/2`` whatever order they moved in.
    """
    paths: list[_Path] = []
    for step in steps:
        path = next((p for p in paths if p.landings[-1] == step.source), None)
        if path is None:
            path = _Path(step.source)
            paths.append(path)
        path.landings.append(step.target)
        path.hits.append(step.hit)
    if not paths:
        return PASS
    counts: dict[tuple[int, tuple[int, ...]], int] = {}
    for path in paths:
        key = (path.source, path.stops())
        counts[key] = counts.get(key, 0) + 1
    hit_points = {point for path in paths for point, hit in zip(path.landings, path.hits) if hit}
    marked: set[int] = set()
    words = []
    for (source, stops), count in sorted(counts.items(), key=lambda item: (-item[0][0], [-p for p in item[0][1]])):
        parts = [_point_name(source)]
        for index, point in enumerate(stops):
            hit = index < len(stops) - 1 or (point in hit_points and point not in marked)
            if hit:
                marked.add(point)
            parts.append(_point_name(point) + ("*" if hit else ""))
        text = "/".join(parts)
        words.append(text if count == 1 else f"{text}({count})")
    return " ".join(words)


def _point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


# ----- reading


def parse_play(text: str, position: Position, dice: Sequence[int]) -> Play:
    """The legal play of ``dice`` in ``position`` that ``text`` describes.

    Raises :class:`NotationError` when the text is malformed and
    :class:`nardy.rules.IllegalPlayError` when it describes no legal play;
    both messages quote the text. ``pass`` stands for an unplayable roll and
    returns a play with no steps that leaves the position unchanged.
    """
    plays = position.legal_plays(dice)
    roll = f"{dice[0]}-{dice[1]}"
    words = text.split()
    if len(words) == 1 and words[0].lower() == PASS:
        if plays:
            raise IllegalPlayError(f"{text!r}: {roll} can be played here, so it cannot be passed")
        return Play((), position)
    if not words:
        raise NotationError("empty move text: write the moves, or 'pass'")
    if not plays:
        raise IllegalPlayError(f"{text!r}: {roll} cannot be played here; the only play is 'pass'")
    if position.variant.pinning:
        # a pin leaves the pinned checker where it stands: the checkers the text moves say the play, and
        # where several plays move them so, the text's marks of pins pick one
        own_after, _, _ = _moved(text, words, position)
        own = (tuple(own_after[1:BAR]), own_after[BAR], own_after[OFF])
        same_checkers = [play for play in plays if _own_checkers(play.position) == own]
        exact = [play for play in same_checkers if format_steps(play.steps) == " ".join(words)]
        freed = "*/" in text or any("*/" in format_steps(play.steps) for play in same_checkers)
        if not exact and freed:
            exact = _written_as(" ".join(words), position, dice)
    else:
        described = _apply(text, words, position)
        own = _own_checkers(described)
        same_checkers = [play for play in plays if _own_checkers(play.position) == own]
        exact = [play for play in same_checkers if play.position == described]
    if exact:
        return exact[0]
    if len(same_checkers) == 1:
        return same_checkers[0]
    if same_checkers:
        raise IllegalPlayError(f"{text!r} is ambiguous with {roll}: say where the checker hits with '*'")
    raise IllegalPlayError(f"{text!r} is not a legal play of {roll}")


def _written_as(text: str, position: Position, dice: Sequence[int]) -> list[Play]:
    """The legal play whose own steps are written ``text``, found step by step (empty if none is).

    With pins, plays that leave the same position can be written apart: a
    checker that pins on its way and moves on frees the pin again
    (``24/18*/13`` leaves what ``24/13`` leaves), and :meth:`Position.legal_plays`
    gives one play per position. So that a record's move text comes back as
    it was played, the play is taken in the order of steps the text names.
    Asked only where a pin freed on the way is written or could be; the
    search follows only the steps the text can show.
    """
    tokens = [match for word in text.split() if (match := _TOKEN.fullmatch(word))]
    sources = {_read_point(text, match["source"]) for match in tokens}
    marked = {
        _read_point(text, landing[1]) for match in tokens for landing in _LANDING.finditer(match["rest"])
        if landing[0].endswith("*")
    }
    pending: list[tuple[Step, ...]] = [()]
    while pending:
        made = pending.pop()
        following = position.next_steps(dice, made)
        if not following and format_steps(made) == text:
            return [Play(made, position.play(dice, made))]
        # a step the text cannot show is not followed: a pin it does not mark, a checker from a point it names not
        landed = {step.target for step in made}
        pending.extend(
            (*made, step) for step in following
            if (step.target in marked or not step.hit) and (step.source in sources or step.source in landed)
        )
    return []


def _apply(text: str, words: list[str], position: Position) -> Position:
    """The position the moves of ``text`` leave, in any order of its paths.

    A checker landing on a named point that holds a lone opposing checker
    hits it (where the variant hits); points it passes unnamed are not hit.
    """
    own, theirs, opponent_bar = _moved(text, words, position)
    for point, count in enumerate(own):
        if count and theirs[point]:
            raise IllegalPlayError(f"{text!r} lands on {point}, which the opponent holds")
    return Position(
        position.variant,
        tuple(mine - their for mine, their in zip(own[1:BAR], theirs[1:BAR])),
        (own[BAR], opponent_bar),
        (own[OFF], position.off[1]),
    )


def _moved(text: str, words: list[str], position: Position) -> tuple[list[int], list[int], int]:
    """Our checkers (off, points, bar), the opponent's per point and its bar count after the moves of
    ``text``; raises when the text moves checkers that are not there."""
    own = [position.off[0], *(max(count, 0) for count in position.points), position.bar[0]]
    theirs = [0, *(max(-count, 0) for count in position.points), 0]
    opponent_bar = position.bar[1]
    hitting = position.variant.hitting
    for word in words:
        match = _TOKEN.fullmatch(word)
        if match is None:
            raise NotationError(f"{text!r}: cannot read {word!r}; write moves like 24/18, bar/22, 6/off or 13/7(2)")
        source = _read_point(text, match["source"])
        stops = [_read_point(text, landing[1]) for landing in _LANDING.finditer(match["rest"])]
        if OFF in stops[:-1]:
            raise NotationError(f"{text!r}: in {word!r} a checker borne off cannot move on")
        count = int(match["count"] or 1)
        if count < 1:
            raise NotationError(f"{text!r}: in {word!r} the count must be at least 1")
        own[source] -= count
        own[stops[-1]] += count
        for stop in stops:
            if hitting and theirs[stop] == 1:
                theirs[stop] = 0
                opponent_bar += 1
    for point, count in enumerate(own):
        if count < 0:
            raise IllegalPlayError(f"{text!r} moves more checkers from {_point_name(point)} than stand there")
    return own, theirs, opponent_bar


def _read_point(text: str, word: str) -> int:
    """A point of the move text: ``bar`` (only ever a source), ``off`` (only a target) or 1..24."""
    lowered = word.lower()
    if lowered == "bar":
        return BAR
    if lowered == "off":
        return OFF
    point = int(lowered)
    if not 1 <= point <= NUM_POINTS:
        raise NotationError(f"{text!r}: {word} is not a point; points are 1 to {NUM_POINTS}")
    return point


def _own_checkers(position: Position) -> tuple[tuple[int, ...], int, int]:
    """Where the side to move's checkers stand, ignoring the opponent (to match unmarked hits)."""
    return tuple(max(count, 0) for count in position.points), position.bar[0], position.off[0]


__all__ = ["PASS", "format_steps", "parse_play"]
