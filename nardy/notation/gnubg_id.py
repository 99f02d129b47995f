"""GNU Backgammon's Position ID and Match ID, so positions can be exchanged with gnubg.

Both are described in the gnubg manual ("A technical description of the
Position ID" / "... of the Match ID"): a bit string, packed little-endian
into bytes (the first bit is the least significant bit of the first byte),
written in Base64 without the ``=`` padding.

**Position ID** (80-bit key, 14 characters). For each side, for its points
1..24 and then its bar, as many ``1`` bits as it has checkers there followed
by one ``0``; borne-off checkers are not stored (they are whatever is missing
from 15). The manual lists the player on roll first, but gnubg's own code
writes its board ``[0]`` (the player *not* on roll) first and the player on
roll second; IDs that gnubg prints follow the code, e.g. after the opening
3-1 played 8/5 6/5 gnubg shows ``sGfwATDgc/ABMA`` with the other side on roll.
This module follows gnubg's behaviour, so its IDs paste into gnubg.
Our :class:`Position` is seen from the side to move, gnubg's player on roll.

**Match ID** (67-bit key, 12 characters): cube, cube owner, player on roll,
Crawford flag, game state, turn, double offered, resignation, dice, match
length and score, fields written least significant bit first: the 66 bits
the gnubg manual describes, and a 67th that gnubg sets when the Jacoby rule
is off (always in match play), which the manual does not mention.

>>> from nardy.rules import Position
>>> position_id(Position.start("backgammon"))
'4HPwATDgc/ABMA'
>>> match_from_id("QYkqASAAIAAA").score
(2, 4)
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal

from nardy.notation.errors import NotationError
from nardy.rules import NUM_POINTS, Position, Variant, find_variant

POSITION_ID_LENGTH: Final = 14
MATCH_ID_LENGTH: Final = 12
_POSITION_KEY_BYTES: Final = 10
_MATCH_KEY_BYTES: Final = 9
_SLOTS: Final = NUM_POINTS + 1  # points 1..24 and the bar, per side
_BASE64_ALPHABET: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

CubeOwner = Literal["centre", "player0", "player1"]
_OWNER_BITS: Final[dict[CubeOwner, int]] = {"player0": 0, "player1": 1, "centre": 3}
_MAX_FIELD: Final = (1 << 15) - 1


class GameState(IntEnum):
    """gnubg's game state (Match ID bits 9-11)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(IntEnum):
    """The resignation on offer (Match ID bits 14-15); the offerer is the player not in ``turn``."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


# (field, bit width) in key order; the first field starts at bit 0.
_MATCH_LAYOUT: Final = (
    ("cube_log", 4),
    ("cube_owner", 2),
    ("player_on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)


# ----- Position ID


def position_id(position: Position) -> str:
    """The gnubg Position ID of ``position`` (short variants only: a long-nardy board has no gnubg form)."""
    _require_short(position.variant)
    topology = position.variant.topology
    on_roll = [0] * _SLOTS
    opponent = [0] * _SLOTS
    for index, count in enumerate(position.points):
        if count > 0:
            on_roll[index] = count
        elif count < 0:
            opponent[topology.opponent_point(index + 1) - 1] = -count
    on_roll[NUM_POINTS] = position.bar[0]
    opponent[NUM_POINTS] = position.bar[1]
    key = 0
    bit = 0
    for count in (*opponent, *on_roll):
        key |= ((1 << count) - 1) << bit
        bit += count + 1
    return _to_base64(key.to_bytes(_POSITION_KEY_BYTES, "little"))


def position_from_id(pid: str, variant: Variant | str = "backgammon") -> Position:
    """The position a gnubg Position ID describes, in ``variant`` (backgammon, dave or georgian).

    The player on roll becomes the side to move. Raises :class:`NotationError`
    for a malformed ID or one that puts both sides on a point or more than
    the variant's number of checkers on one side.
    """
    rules = find_variant(variant) if isinstance(variant, str) else variant
    _require_short(rules)
    key = int.from_bytes(_from_base64(pid, POSITION_ID_LENGTH, _POSITION_KEY_BYTES, "Position ID"), "little")
    counts, used = _unary_counts(key, 2 * _SLOTS)
    if len(counts) < 2 * _SLOTS or key >> used:
        raise NotationError(f"Position ID {pid!r} does not hold two sides of 25 places each")
    opponent, on_roll = counts[:_SLOTS], counts[_SLOTS:]
    checkers = rules.checkers
    for side, name in ((on_roll, "the player on roll"), (opponent, "the opponent")):
        if sum(side) > checkers:
            raise NotationError(
                f"Position ID {pid!r} gives {name} {sum(side)} checkers; each side has {checkers} in {rules.name}"
            )
    topology = rules.topology
    points = list(on_roll[:NUM_POINTS])
    for index, count in enumerate(opponent[:NUM_POINTS]):
        if count:
            ours = topology.opponent_point(index + 1) - 1
            if points[ours]:
                raise NotationError(f"Position ID {pid!r} puts both sides on point {ours + 1}")
            points[ours] = -count
    bar = (on_roll[NUM_POINTS], opponent[NUM_POINTS])
    off = (checkers - sum(on_roll), checkers - sum(opponent))
    return Position(rules, tuple(points), bar, off)


def _unary_counts(key: int, wanted: int) -> tuple[list[int], int]:
    """Up to ``wanted`` counts read from ``key`` (n one bits, then a zero), and the bits they took."""
    counts: list[int] = []
    run = 0
    bit = 0
    while len(counts) < wanted and bit < 8 * _POSITION_KEY_BYTES:
        if (key >> bit) & 1:
            run += 1
        else:
            counts.append(run)
            run = 0
        bit += 1
    return counts, bit


def _require_short(variant: Variant) -> None:
    if variant.pinning:
        raise NotationError(f"a gnubg Position ID cannot hold pinned checkers; {variant.name} has no gnubg Position ID")
    if not variant.hitting:
        raise NotationError(
            f"GNU Backgammon IDs describe backgammon boards; {variant.name} has no gnubg Position ID"
        )


# ----- Match ID


@dataclass(frozen=True, kw_only=True)
class MatchIdFields:
    """The fields of a gnubg Match ID, players numbered 0 and 1 as gnubg does.

    ``cube_value``: 1, 2, 4, ... 32768. ``cube_owner``: ``"centre"``,
    ``"player0"`` or ``"player1"``. ``player_on_roll``: the player who rolls
    or rolled. ``turn``: the player who must act now (the one to answer a
    double or a resignation). ``resigned``: the resignation on offer.
    ``dice``: ``(0, 0)`` before the roll, else two numbers 1..6.
    ``match_length``: 0 for money play. ``score``: (player 0, player 1).
    ``jacoby``: the Jacoby rule is in effect (gnubg says it is not, in match play).
    The defaults describe a money game in play with the Jacoby rule, cube centred, player 0 to roll.
    """

    cube_value: int = 1
    cube_owner: CubeOwner = "centre"
    player_on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "game_state", GameState(self.game_state))
        except ValueError:
            raise NotationError(f"the game state is 0 to 4 (see GameState), got {self.game_state!r}") from None
        try:
            object.__setattr__(self, "resigned", Resignation(self.resigned))
        except ValueError:
            raise NotationError(f"the resignation is 0 to 3 (see Resignation), got {self.resigned!r}") from None
        for name in ("dice", "score"):
            pair = tuple(getattr(self, name))
            if len(pair) != 2:
                raise NotationError(f"{name} is a pair, got {getattr(self, name)!r}")
            object.__setattr__(self, name, pair)
        self._validate()

    def _validate(self) -> None:
        value = self.cube_value
        if not 1 <= value <= 1 << 15 or value & (value - 1):
            raise NotationError(f"the cube shows a power of two from 1 to 32768, got {value}")
        if self.cube_owner not in _OWNER_BITS:
            raise NotationError(f"the cube owner is 'centre', 'player0' or 'player1', got {self.cube_owner!r}")
        for name, player in (("player_on_roll", self.player_on_roll), ("turn", self.turn)):
            if player not in (0, 1):
                raise NotationError(f"{name} is player 0 or 1, got {player!r}")
        first, second = self.dice
        if not (0 <= first <= 6 and 0 <= second <= 6) or (first == 0) != (second == 0):
            raise NotationError(f"dice are (0, 0) before the roll or two numbers 1..6, got {self.dice}")
        if not 0 <= self.match_length <= _MAX_FIELD:
            raise NotationError(f"the match length is 0 (money) to {_MAX_FIELD}, got {self.match_length}")
        if any(not 0 <= points <= _MAX_FIELD for points in self.score):
            raise NotationError(f"each score is 0 to {_MAX_FIELD}, got {self.score}")


def match_id(fields: MatchIdFields) -> str:
    """The gnubg Match ID of ``fields``."""
    values = {
        "cube_log": fields.cube_value.bit_length() - 1,
        "cube_owner": _OWNER_BITS[fields.cube_owner],
        "player_on_roll": fields.player_on_roll,
        "crawford": int(fields.crawford),
        "game_state": int(fields.game_state),
        "turn": fields.turn,
        "doubled": int(fields.doubled),
        "resigned": int(fields.resigned),
        "die1": fields.dice[0],
        "die2": fields.dice[1],
        "match_length": fields.match_length,
        "score0": fields.score[0],
        "score1": fields.score[1],
        "no_jacoby": int(not fields.jacoby),
    }
    key = 0
    bit = 0
    for name, width in _MATCH_LAYOUT:
        key |= values[name] << bit
        bit += width
    return _to_base64(key.to_bytes(_MATCH_KEY_BYTES, "little"))


def match_from_id(mid: str) -> MatchIdFields:
    """The fields of a gnubg Match ID; :class:`NotationError` if it is malformed."""
    key = int.from_bytes(_from_base64(mid, MATCH_ID_LENGTH, _MATCH_KEY_BYTES, "Match ID"), "little")
    values: dict[str, int] = {}
    bit = 0
    for name, width in _MATCH_LAYOUT:
        values[name] = (key >> bit) & ((1 << width) - 1)
        bit += width
    if key >> bit:
        raise NotationError(f"Match ID {mid!r} sets bits beyond the 67 of the match key")
    owners = {bits: owner for owner, bits in _OWNER_BITS.items()}
    if values["cube_owner"] not in owners:
        raise NotationError(f"Match ID {mid!r} has cube owner bits 10, which gnubg does not use")
    if values["game_state"] > max(GameState):
        raise NotationError(f"Match ID {mid!r} has unknown game state {values['game_state']}")
    return MatchIdFields(
        cube_value=1 << values["cube_log"],
        cube_owner=owners[values["cube_owner"]],
        player_on_roll=values["player_on_roll"],
        crawford=bool(values["crawford"]),
        game_state=GameState(values["game_state"]),
        turn=values["turn"],
        doubled=bool(values["doubled"]),
        resigned=Resignation(values["resigned"]),
        dice=(values["die1"], values["die2"]),
        match_length=values["match_length"],
        score=(values["score0"], values["score1"]),
        jacoby=not values["no_jacoby"],
    )


# ----- Base64 without padding


def _to_base64(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii").rstrip("=")


def _from_base64(text: str, length: int, size: int, what: str) -> bytes:
    if not isinstance(text, str) or len(text) != length:
        raise NotationError(f"a {what} is {length} Base64 characters, got {text!r}")
    bad = sorted(set(text) - _BASE64_ALPHABET)
    if bad:
        raise NotationError(f"{what} {text!r} contains {''.join(bad)!r}, which is not Base64")
    padded = text + "=" * (-len(text) % 4)
    try:
        key = base64.b64decode(padded, validate=True)
    except binascii.Error as error:
        raise NotationError(f"{what} {text!r} is not valid Base64: {error}") from error
    if len(key) != size or _to_base64(key) != text:
        raise NotationError(f"{what} {text!r} has stray bits after its {8 * size}-bit key")
    return key


__all__ = [
    "CubeOwner", "GameState", "MatchIdFields", "Resignation", "MATCH_ID_LENGTH", "POSITION_ID_LENGTH",
    "match_from_id", "match_id", "position_from_id", "position_id",
]
