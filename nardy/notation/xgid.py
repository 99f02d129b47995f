"""eXtreme Gammon's XGID: a backgammon position and its match state in one line of text.

``XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10`` is ten fields
separated by ``:``. They are read here as eXtreme Gammon writes them and as
GNU Backgammon's ``set xgid`` reads them (gnubg's ``set.c``):

1. **Board**, 26 characters, always seen from the *bottom* player (XG's
   "you"), whoever is on roll: character 0 is the top player's bar,
   characters 1..24 are the bottom player's points 1..24, character 25 is
   the bottom player's bar. ``-`` is an empty place, ``A``..``O`` are 1..15
   checkers of the bottom player, ``a``..``o`` of the top player.
   Borne-off checkers are whatever is missing from the variant's number (15, or 3 in hypergammon).
2. **Cube**: the base-2 logarithm of the cube value (``0`` is a 1-cube).
3. **Cube position**: ``1`` the bottom player owns it, ``-1`` the top
   player, ``0`` centred.
4. **Turn**: ``1`` the bottom player is on roll, ``-1`` the top player.
5. **Dice**: ``00`` to roll (or double), ``52`` rolled, ``D`` the player on
   roll has doubled, ``B`` the taker beavered, ``R`` the doubler raccooned.
6. **Score** of the bottom player, then 7. of the top player.
8. **Rules**: in a match ``1`` is the Crawford game; in money play, ``1``
   Jacoby, ``2`` beavers, ``3`` both.
9. **Match length**, ``0`` for money play.
10. **Maximum cube**, as a base-2 logarithm (XG writes ``10``, a 1024-cube).

Here the bottom player is **player 0** and the top player **player 1**, in
the order the text names them (the first score is player 0's). Unlike the
board of the text, a :class:`Position` is seen from the side to move, so
:func:`to_xgid` and :func:`from_xgid` take and give the position as the player
on roll sees it and turn the board when player 1 is on roll.

>>> from nardy.rules import Position
>>> to_xgid(Position.start("backgammon"), XgidFields(dice=(5, 2)))
'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10'
>>> position, fields = from_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:00:2:4:1:7:10")
>>> fields.cube_value, fields.cube_owner, fields.player_on_roll, fields.score, fields.crawford
(2, 'player1', 1, (2, 4), True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from nardy.notation.errors import NotationError
from nardy.notation.gnubg_id import CubeOwner
from nardy.rules import NUM_POINTS, Position, Variant, find_variant

PREFIX: Final = "XGID="
BOARD_LENGTH: Final = NUM_POINTS + 2
FIELD_COUNT: Final = 10

CubeOffer = Literal["none", "double", "beaver", "raccoon"]
"""A cube action waiting for an answer (the XGID dice field ``D``, ``B``, ``R``)."""

_OFFER_LETTERS: Final[dict[CubeOffer, str]] = {"double": "D", "beaver": "B", "raccoon": "R"}
_OWNER_NUMBERS: Final[dict[CubeOwner, int]] = {"player0": 1, "player1": -1, "centre": 0}
_TURN_NUMBERS: Final = {0: 1, 1: -1}
_INTEGER: Final = re.compile(r"-?\d+")
_MAX_LOG: Final = 15


@dataclass(frozen=True, kw_only=True)
class XgidFields:
    """The match fields of an XGID; player 0 is XG's bottom player, player 1 the top one.

    ``cube_value``: 1, 2, 4, ... ``cube_owner``: ``"centre"``, ``"player0"``
    or ``"player1"``. ``player_on_roll``: the player who rolls, rolled or
    doubled. ``dice``: ``(0, 0)`` before the roll. ``cube_offer``: a double
    (or beaver, raccoon) waiting for an answer; the dice are then ``(0, 0)``.
    ``score``: (player 0, player 1). ``crawford`` (matches only);
    ``jacoby`` and ``beavers`` (money play only). ``match_length``: 0 for
    money play. ``max_cube``: the highest cube allowed, 1024 as XG writes.
    The defaults describe a money game, cube centred, player 0 to roll.
    """

    cube_value: int = 1
    cube_owner: CubeOwner = "centre"
    player_on_roll: int = 0
    dice: tuple[int, int] = (0, 0)
    cube_offer: CubeOffer = "none"
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    match_length: int = 0
    max_cube: int = 1024

    def __post_init__(self) -> None:
        for name in ("dice", "score"):
            pair = tuple(getattr(self, name))
            if len(pair) != 2:
                raise NotationError(f"{name} is a pair, got {getattr(self, name)!r}")
            object.__setattr__(self, name, pair)
        self._check_cube()
        self._check_turn()
        self._check_match()

    def _check_cube(self) -> None:
        for name in ("cube_value", "max_cube"):
            value = getattr(self, name)
            if not 1 <= value <= 1 << _MAX_LOG or value & (value - 1):
                raise NotationError(f"{name} is a power of two from 1 to {1 << _MAX_LOG}, got {value}")
        if self.cube_owner not in _OWNER_NUMBERS:
            raise NotationError(f"the cube owner is 'centre', 'player0' or 'player1', got {self.cube_owner!r}")

    def _check_turn(self) -> None:
        if self.player_on_roll not in (0, 1):
            raise NotationError(f"player_on_roll is player 0 or 1, got {self.player_on_roll!r}")
        first, second = self.dice
        if not (0 <= first <= 6 and 0 <= second <= 6) or (first == 0) != (second == 0):
            raise NotationError(f"dice are (0, 0) before the roll or two numbers 1..6, got {self.dice}")
        if self.cube_offer not in ("none", *_OFFER_LETTERS):
            raise NotationError(f"the cube offer is none, double, beaver or raccoon, got {self.cube_offer!r}")
        if self.cube_offer != "none" and first:
            raise NotationError(f"a {self.cube_offer} is offered before the roll, but the dice show {self.dice}")

    def _check_match(self) -> None:
        length = self.match_length
        if length < 0:
            raise NotationError(f"the match length is 0 (money) or more, got {length}")
        if any(points < 0 for points in self.score):
            raise NotationError(f"scores are 0 or more, got {self.score}")
        if length and max(self.score) >= length:
            raise NotationError(f"each score is 0 to {length - 1} in a {length}-point match, got {self.score}")
        if self.crawford and not length:
            raise NotationError("the Crawford game is a match rule; money play has none")
        if (self.jacoby or self.beavers) and length:
            raise NotationError("Jacoby and beavers are money-play rules; a match has neither")


# ----- writing


def to_xgid(position: Position, fields: XgidFields) -> str:
    """The XGID of ``position``, seen from ``fields.player_on_roll``, with the match ``fields``."""
    _require_short(position.variant)
    bottom = position if fields.player_on_roll == 0 else position.turned()
    board = [_letter(count) for count in (-bottom.bar[1], *bottom.points, bottom.bar[0])]
    if fields.cube_offer != "none":
        dice = _OFFER_LETTERS[fields.cube_offer]
    else:
        dice = f"{fields.dice[0]}{fields.dice[1]}"
    values = (
        "".join(board),
        fields.cube_value.bit_length() - 1,
        _OWNER_NUMBERS[fields.cube_owner],
        _TURN_NUMBERS[fields.player_on_roll],
        dice,
        fields.score[0],
        fields.score[1],
        _rules_number(fields),
        fields.match_length,
        fields.max_cube.bit_length() - 1,
    )
    return PREFIX + ":".join(str(value) for value in values)


def _letter(count: int) -> str:
    """A board character: positive counts are the bottom player's (upper case), negative the top's."""
    if count > 0:
        return chr(ord("A") + count - 1)
    if count < 0:
        return chr(ord("a") - count - 1)
    return "-"


def _rules_number(fields: XgidFields) -> int:
    if fields.match_length:
        return int(fields.crawford)
    return int(fields.jacoby) + 2 * int(fields.beavers)


# ----- reading


def from_xgid(text: str, variant: Variant | str = "backgammon") -> tuple[Position, XgidFields]:
    """The position (seen from the player on roll) and the match fields of an XGID.

    ``variant`` is backgammon, dave or georgian (the boards an XGID can
    hold); the ``XGID=`` prefix is optional. Raises :class:`NotationError`
    naming the field that is malformed.
    """
    rules = find_variant(variant) if isinstance(variant, str) else variant
    _require_short(rules)
    if not isinstance(text, str):
        raise NotationError(f"an XGID is text, got {text!r}")
    body = text.strip()
    body = body[len(PREFIX):] if body.upper().startswith(PREFIX) else body
    parts = body.split(":")
    if len(parts) != FIELD_COUNT:
        raise NotationError(f"an XGID has {FIELD_COUNT} fields separated by ':', got {len(parts)} in {text!r}")
    board, cube, owner, turn, dice, score0, score1, rules_field, length, max_cube = parts
    match_length = _number(text, "match length", length)
    crawford, jacoby, beavers = _rules_flags(text, rules_field, match_length)
    fields = XgidFields(
        cube_value=1 << _logarithm(text, "cube", cube),
        cube_owner=_owner(text, owner),
        player_on_roll=_turn(text, turn),
        dice=_dice(text, dice),
        cube_offer=_offer(dice),
        score=(_number(text, "first score", score0), _number(text, "second score", score1)),
        crawford=crawford,
        jacoby=jacoby,
        beavers=beavers,
        match_length=match_length,
        max_cube=1 << _logarithm(text, "maximum cube", max_cube),
    )
    bottom = _board(text, board, rules)
    return (bottom if fields.player_on_roll == 0 else bottom.turned()), fields


def _board(text: str, board: str, variant: Variant) -> Position:
    if len(board) != BOARD_LENGTH:
        raise NotationError(f"an XGID board is {BOARD_LENGTH} characters, got {len(board)} in {text!r}")
    counts = [_count(text, index, char) for index, char in enumerate(board)]
    if counts[0] > 0:
        raise NotationError(f"XGID {text!r}: character 0 is the top player's bar, so it is lower case or '-'")
    if counts[-1] < 0:
        raise NotationError(f"XGID {text!r}: character 25 is the bottom player's bar, so it is upper case or '-'")
    points = tuple(counts[1:-1])
    bar = (counts[-1], -counts[0])
    own = sum(count for count in points if count > 0) + bar[0]
    theirs = -sum(count for count in points if count < 0) + bar[1]
    checkers = variant.checkers
    for total, side in ((own, "bottom"), (theirs, "top")):
        if total > checkers:
            raise NotationError(
                f"XGID {text!r} gives the {side} player {total} checkers; each side has {checkers} in {variant.name}"
            )
    return Position(variant, points, bar, (checkers - own, checkers - theirs))


def _count(text: str, index: int, char: str) -> int:
    """The checkers one board character stands for: positive the bottom player's, negative the top's."""
    if char == "-":
        return 0
    if "A" <= char <= "Z":
        return ord(char) - ord("A") + 1
    if "a" <= char <= "z":
        return -(ord(char) - ord("a") + 1)
    raise NotationError(f"XGID {text!r}: board character {index} is {char!r}; write '-', A-O or a-o")


def _number(text: str, name: str, field: str) -> int:
    if not _INTEGER.fullmatch(field):
        raise NotationError(f"XGID {text!r}: the {name} is a whole number, got {field!r}")
    return int(field)


def _logarithm(text: str, name: str, field: str) -> int:
    value = _number(text, name, field)
    if not 0 <= value <= _MAX_LOG:
        raise NotationError(f"XGID {text!r}: the {name} is a power of two written 0 to {_MAX_LOG}, got {value}")
    return value


def _owner(text: str, field: str) -> CubeOwner:
    number = _number(text, "cube position", field)
    owners = {value: owner for owner, value in _OWNER_NUMBERS.items()}
    if number not in owners:
        raise NotationError(f"XGID {text!r}: the cube position is 1, 0 or -1, got {number}")
    return owners[number]


def _turn(text: str, field: str) -> int:
    number = _number(text, "turn", field)
    players = {value: player for player, value in _TURN_NUMBERS.items()}
    if number not in players:
        raise NotationError(f"XGID {text!r}: the turn is 1 (bottom player) or -1 (top player), got {number}")
    return players[number]


def _dice(text: str, field: str) -> tuple[int, int]:
    if field in _OFFER_LETTERS.values():
        return (0, 0)
    if not re.fullmatch(r"00|[1-6][1-6]", field):
        raise NotationError(f"XGID {text!r}: the dice are 00, two dice 1-6, D, B or R; got {field!r}")
    return (int(field[0]), int(field[1]))


def _offer(field: str) -> CubeOffer:
    offers = {letter: offer for offer, letter in _OFFER_LETTERS.items()}
    return offers.get(field, "none")


def _rules_flags(text: str, field: str, match_length: int) -> tuple[bool, bool, bool]:
    """(Crawford game, Jacoby, beavers) from the rules field, read by the match length."""
    number = _number(text, "rules field", field)
    if match_length:
        if number not in (0, 1):
            raise NotationError(f"XGID {text!r}: in a match the rules field is 1 (Crawford game) or 0, got {number}")
        return bool(number), False, False
    if not 0 <= number <= 3:
        raise NotationError(
            f"XGID {text!r}: in money play the rules field is 0 to 3 (1 Jacoby, 2 beavers), got {number}"
        )
    return False, bool(number & 1), bool(number & 2)


def _require_short(variant: Variant) -> None:
    if variant.pinning:
        raise NotationError(f"an XGID cannot hold pinned checkers; {variant.name} has no XGID")
    if not variant.hitting:
        raise NotationError(f"an XGID describes a backgammon board; {variant.name} has no XGID")


__all__ = ["BOARD_LENGTH", "CubeOffer", "FIELD_COUNT", "PREFIX", "XgidFields", "from_xgid", "to_xgid"]
