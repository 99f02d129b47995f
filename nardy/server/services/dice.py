"""Provably fair dice: every roll is derived from a seed committed before the game.

This docstring is the public specification players verify their games with.

The scheme
----------
1. Before a game's client seeds are fixed, the server draws that game's
   secret **seed** of 32 random bytes, written as 64 hex digits, and
   publishes its **commitment** ``seed_hash = SHA-256(bytes.fromhex(seed))``
   as 64 lowercase hex digits (game 1's when the table opens, game N+1's
   when game N starts).
2. Each player supplies a **client seed**: 1 to 64 printable ASCII
   characters (space to ``~``) other than ``:``. Player 0's comes first.
   A player may set a fresh one at any time; the seeds in force when a game
   starts are the ones its rolls use. A client seed chosen after the
   commitment was published cannot have been ground against by the server,
   and the seed cannot change after its commitment, so neither side can
   steer the dice.
3. The rolls of a game are numbered 0, 1, 2, ... in the order they are made,
   with no number skipped or repeated (a gap could hide a discarded roll).
   Roll ``number`` is::

       key     = bytes.fromhex(seed)
       message = f"{client_seed_0}:{client_seed_1}:{number}".encode("utf-8")
       block 0 = HMAC-SHA256(key, message)
       block k = HMAC-SHA256(key, message + f":{k}".encode("utf-8"))   for k = 1, 2, ...

   Read the bytes of block 0, then block 1, and so on, in order. Skip every
   byte ``b >= 252``; each kept byte gives the die ``b % 6 + 1``. The first
   two dice kept are the roll, in that order. (252 = 6 * 42 is the largest
   multiple of 6 that fits in a byte, so every face comes from exactly 42 byte
   values: no modulo bias. Block 1 is needed only if 31 of the 32 bytes of
   block 0 are skipped.)
4. An **opening roll** is a roll like any other: ``dice[0]`` is player 0's
   die and ``dice[1]`` player 1's; a tie is rerolled with the next number.
5. When the game ends the server reveals the seed; anyone can check its
   commitment and recompute every roll.

The game record
---------------
A match exports as JSON; keys other than these are allowed and ignored::

    {"games": [
        {"number": 1,                     # the game's number in the match, from 1 (a chouette's from 0)
         "seed": "<64 hex digits>",       # null until the game is finished
         "seed_hash": "<64 hex digits>",  # the commitment published at its start
         "client_seeds": ["<player 0>", "<player 1>"],
         "rolls": [{"number": 0, "dice": [3, 1], "kind": "opening"},
                   {"number": 1, "dice": [3, 1], "kind": "roll"}]},
        ...]}

``kind`` is ``"opening"`` or ``"roll"``. A chouette's record numbers its
formations and games together from 0 (``docs/chouette.md``); a formation's
rolls are all ``"roll"``. :func:`verify_record` checks a record
and ``nardy verify-dice RECORD`` does the same from the command line.

>>> seed = "00" * 32
>>> commitment(seed)
'66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
>>> [derive_dice(seed, ("alice", "bob"), number) for number in range(3)]
[(3, 3), (5, 1), (2, 1)]
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, count, islice
from typing import Any, Final, Literal, Protocol, TypedDict

ACCEPT_BELOW: Final = 252
"""Bytes from here up are skipped: 252 = 6 * 42, so ``b % 6`` is uniform on the rest."""

MAX_CLIENT_SEED_LENGTH: Final = 64
"""The longest client seed, in characters."""

RollKind = Literal["opening", "roll"]
"""An opening roll (one die per player) or a player's roll of both dice."""

_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")


class RecordError(ValueError):
    """A game record that does not follow the format; the message names the problem."""


class ScriptExhaustedError(LookupError):
    """:class:`ScriptedDice` was asked for more rolls than it was given."""


class DiceSource(Protocol):
    """Where a game's dice come from: seeds to commit to, and the roll for each number."""

    def new_seed(self) -> str:
        """A fresh secret seed: 64 hex digits."""

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        """Roll ``number`` of the game with this seed and these client seeds."""


def check_seed(seed: str) -> str:
    """Return ``seed`` in lowercase if it is 64 hex digits (32 bytes), else raise ``ValueError``."""
    if not isinstance(seed, str) or len(seed) != 64 or not _HEX_DIGITS.issuperset(seed):
        raise ValueError(f"a seed is 64 hex digits, got {seed!r}")
    return seed.lower()


def check_client_seed(client_seed: str) -> str:
    """Return ``client_seed`` if it is 1 to 64 printable ASCII characters without ':', else raise ``ValueError``."""
    if not isinstance(client_seed, str):
        raise ValueError(f"a client seed is a string, got {client_seed!r}")
    if not 1 <= len(client_seed) <= MAX_CLIENT_SEED_LENGTH:
        raise ValueError(f"a client seed has 1 to {MAX_CLIENT_SEED_LENGTH} characters, got {len(client_seed)}")
    for character in client_seed:
        if not " " <= character <= "~":
            raise ValueError(f"a client seed is printable ASCII, got {character!r} in {client_seed!r}")
    if ":" in client_seed:
        raise ValueError(f"a client seed may not contain ':', got {client_seed!r}")
    return client_seed


def _check_number(number: int) -> int:
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise ValueError(f"a roll number is a whole number from 0, got {number!r}")
    return number


def commitment(seed: str) -> str:
    """The SHA-256 of the seed's 32 bytes, as 64 lowercase hex digits: published before the game."""
    return hashlib.sha256(bytes.fromhex(check_seed(seed))).hexdigest()


def digest_blocks(seed: str, client_seeds: tuple[str, str], number: int) -> Iterator[bytes]:
    """The endless stream of HMAC-SHA256 blocks that roll ``number`` is read from (step 3).

    The arguments are checked at once, before the first block is asked for.
    """
    key = bytes.fromhex(check_seed(seed))
    first, second = client_seeds
    message = f"{check_client_seed(first)}:{check_client_seed(second)}:{_check_number(number)}".encode()
    return _blocks(key, message)


def _blocks(key: bytes, message: bytes) -> Iterator[bytes]:
    yield hmac.new(key, message, hashlib.sha256).digest()
    for k in count(1):
        yield hmac.new(key, message + f":{k}".encode(), hashlib.sha256).digest()


def die_from_byte(byte: int) -> int | None:
    """The die a byte gives, or ``None`` for a skipped byte (252 or more)."""
    return byte % 6 + 1 if byte < ACCEPT_BELOW else None


def dice_from_bytes(data: Iterable[int]) -> tuple[int, int]:
    """The first two dice that the bytes give, skipping bytes of 252 or more."""
    first_two = list(islice((die for die in map(die_from_byte, data) if die is not None), 2))
    if len(first_two) < 2:
        raise ValueError("the bytes ran out before two dice were read")
    return (first_two[0], first_two[1])


def derive_dice(seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
    """Roll ``number`` of a game: the scheme of this module's docstring, step 3."""
    return dice_from_bytes(chain.from_iterable(digest_blocks(seed, client_seeds, number)))


class ProvablyFairDice:
    """The production dice source: cryptographically random seeds, dice by :func:`derive_dice`."""

    def new_seed(self) -> str:
        """32 bytes from :mod:`secrets`, as 64 lowercase hex digits."""
        return secrets.token_bytes(32).hex()

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        """The roll derived from the seed, the client seeds and the number."""
        return derive_dice(seed, client_seeds, number)


class ScriptedDice:
    """A dice source for tests: hands out the scripted rolls in order, whatever the seed and number.

    Seeds are still real random seeds, so commitments and records work; only the
    dice are scripted. The arguments of :meth:`roll` are validated as in
    production, so a test catches a malformed client seed or roll number.
    """

    def __init__(self, script: Iterable[tuple[int, int]] = ()) -> None:
        self._script: deque[tuple[int, int]] = deque()
        self.push(*script)

    def push(self, *rolls: tuple[int, int]) -> None:
        """Append rolls to the script."""
        for roll in rolls:
            self._script.append(_check_roll(roll))

    @property
    def remaining(self) -> int:
        """How many scripted rolls have not been handed out yet."""
        return len(self._script)

    def new_seed(self) -> str:
        """A real random seed, as :class:`ProvablyFairDice` gives."""
        return secrets.token_bytes(32).hex()

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        """The next scripted roll; :class:`ScriptExhaustedError` when there is none left."""
        check_seed(seed)
        for client_seed in client_seeds:
            check_client_seed(client_seed)
        _check_number(number)
        if not self._script:
            raise ScriptExhaustedError(f"roll {number} was asked for, but the dice script is used up")
        return self._script.popleft()


def _check_roll(roll: Any) -> tuple[int, int]:
    if not isinstance(roll, (tuple, list)) or len(roll) != 2:
        raise ValueError(f"a roll is two dice, got {roll!r}")
    for die in roll:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise ValueError(f"a die shows a whole number from 1 to 6, got {die!r}")
    return (roll[0], roll[1])


@dataclass(frozen=True, slots=True)
class RecordedRoll:
    """One roll of a game record."""

    number: int
    dice: tuple[int, int]
    kind: RollKind


@dataclass(frozen=True, slots=True)
class RecordedGame:
    """One game of a record: its commitment, the seed once revealed, the client seeds and the rolls."""

    number: int
    seed: str | None
    seed_hash: str
    client_seeds: tuple[str, str]
    rolls: tuple[RecordedRoll, ...]


def parse_record(record: object) -> tuple[RecordedGame, ...]:
    """The games of a decoded JSON record; :class:`RecordError` names what is malformed."""
    if not isinstance(record, Mapping) or not isinstance(record.get("games"), list):
        raise RecordError('a record is a JSON object with a "games" list')
    return tuple(_parse_game(game, index) for index, game in enumerate(record["games"]))


def _parse_game(game: object, index: int) -> RecordedGame:
    where = f"games[{index}]"
    if not isinstance(game, Mapping):
        raise RecordError(f"{where} is not an object")
    for key in ("number", "seed", "seed_hash", "client_seeds", "rolls"):
        if key not in game:
            raise RecordError(f"{where} has no {key!r}")
    number = game["number"]
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise RecordError(f"{where}.number is a whole number from 0, got {number!r}")
    try:
        seed = None if game["seed"] is None else check_seed(game["seed"])
        seed_hash = check_seed(game["seed_hash"])
        client_seeds = game["client_seeds"]
        if not isinstance(client_seeds, list) or len(client_seeds) != 2:
            raise ValueError(f"client_seeds is a list of two strings, got {client_seeds!r}")
        pair = (check_client_seed(client_seeds[0]), check_client_seed(client_seeds[1]))
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None
    rolls = game["rolls"]
    if not isinstance(rolls, list):
        raise RecordError(f"{where}.rolls is not a list")
    return RecordedGame(
        number=number,
        seed=seed,
        seed_hash=seed_hash,
        client_seeds=pair,
        rolls=tuple(_parse_roll(roll, f"{where}.rolls[{position}]") for position, roll in enumerate(rolls)),
    )


def _parse_roll(roll: object, where: str) -> RecordedRoll:
    if not isinstance(roll, Mapping):
        raise RecordError(f"{where} is not an object")
    for key in ("number", "dice", "kind"):
        if key not in roll:
            raise RecordError(f"{where} has no {key!r}")
    kind = roll["kind"]
    if kind not in ("opening", "roll"):
        raise RecordError(f'{where}.kind is "opening" or "roll", got {kind!r}')
    try:
        return RecordedRoll(number=_check_number(roll["number"]), dice=_check_roll(roll["dice"]), kind=kind)
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None


def record_to_dict(games: Iterable[RecordedGame]) -> dict[str, Any]:
    """The JSON-ready record of these games, in the format :func:`parse_record` reads."""
    return {
        "games": [
            {
                "number": game.number,
                "seed": game.seed,
                "seed_hash": game.seed_hash,
                "client_seeds": list(game.client_seeds),
                "rolls": [{"number": roll.number, "dice": list(roll.dice), "kind": roll.kind} for roll in game.rolls],
            }
            for game in games
        ]
    }


def verify_games(games: Iterable[RecordedGame]) -> list[str]:
    """Every way the games break the scheme, one sentence each; empty when every roll checks out."""
    problems: list[str] = []
    for game in games:
        label = f"game {game.number}"
        if game.seed is None:
            problems.append(
                f"{label}: the seed is not revealed yet (the game is unfinished), "
                f"so its {len(game.rolls)} rolls cannot be verified yet"
            )
            continue
        revealed = commitment(game.seed)
        if revealed != game.seed_hash:
            problems.append(f"{label}: the seed hashes to {revealed}, not to the committed seed_hash {game.seed_hash}")
        for position, roll in enumerate(game.rolls):
            if roll.number != position:
                problems.append(
                    f"{label}: roll {position} of the record is numbered {roll.number}; "
                    "rolls are numbered 0, 1, 2, ... with none skipped or repeated"
                )
                break
        for roll in game.rolls:
            derived = derive_dice(game.seed, game.client_seeds, roll.number)
            if derived != roll.dice:
                problems.append(
                    f"{label}, roll {roll.number} ({roll.kind}): recorded {_show(roll.dice)}, "
                    f"the seed gives {_show(derived)}"
                )
    return problems


def verify_record(record: Mapping[str, Any]) -> list[str]:
    """Check a decoded JSON record: the list of mismatches, empty when all is well.

    Raises :class:`RecordError` when the record does not follow the format.
    """
    return verify_games(parse_record(record))


def _show(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


class DiceStatistics(TypedDict):
    """Counts of a player's dice against what fair dice would give."""

    rolls: int
    dice: int
    faces: dict[int, int]
    expected_face: float
    doubles: int
    expected_doubles: float
    chi_square: float


def dice_statistics(rolls: Iterable[tuple[int, int]]) -> DiceStatistics:
    """Face and double counts of these rolls, their expectations and the faces' chi-square.

    ``chi_square`` is Pearson's statistic of the six face counts against
    ``dice / 6`` each, with 5 degrees of freedom: fair dice stay below 11.07
    in 95% of samples and below 15.09 in 99%. It is 0 when there are no dice.

    >>> stats = dice_statistics([(1, 2), (3, 3), (6, 5)])
    >>> stats["faces"], stats["doubles"], stats["expected_doubles"]
    ({1: 1, 2: 1, 3: 2, 4: 0, 5: 1, 6: 1}, 1, 0.5)
    """
    faces = dict.fromkeys(range(1, 7), 0)
    total = doubles = 0
    for roll in rolls:
        first, second = _check_roll(roll)
        faces[first] += 1
        faces[second] += 1
        doubles += first == second
        total += 1
    expected_face = 2 * total / 6
    chi_square = (
        math.fsum((observed - expected_face) ** 2 / expected_face for observed in faces.values()) if total else 0.0
    )
    return DiceStatistics(
        rolls=total,
        dice=2 * total,
        faces=faces,
        expected_face=expected_face,
        doubles=doubles,
        expected_doubles=total / 6,
        chi_square=chi_square,
    )
