"""A match's dice as a game record: read, written, and checked against the seeds revealed.

The format is the one :mod:`nardy.notation.fair_dice` specifies (*The game
record*); the server writes it, and ``nardy verify-dice RECORD`` reads and
checks it. Pure: the record comes in decoded, the problems go out as
sentences.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from nardy.notation.fair_dice import (
    check_client_seed,
    check_roll,
    check_roll_number,
    check_seed,
    commitment,
    derive_dice,
)

RollKind = Literal["opening", "roll"]
"""An opening roll (one die per player) or a player's roll of both dice."""


class RecordError(ValueError):
    """A game record that does not follow the format; the message names the problem."""


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
        return RecordedRoll(number=check_roll_number(roll["number"]), dice=check_roll(roll["dice"]), kind=kind)
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
