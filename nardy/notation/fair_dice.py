"""Provably fair dice: every roll is derived from a seed committed before the game.

Pure computation (no I/O, no randomness of its own): the server rolls by it, and
anyone checks a finished game by it, ``nardy verify-dice`` included.

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
rolls are all ``"roll"``. :func:`nardy.notation.dice_record.verify_record` checks a record
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
from collections.abc import Iterable, Iterator
from itertools import chain, count, islice
from typing import Any, Final

ACCEPT_BELOW: Final = 252
"""Bytes from here up are skipped: 252 = 6 * 42, so ``b % 6`` is uniform on the rest."""

MAX_CLIENT_SEED_LENGTH: Final = 64
"""The longest client seed, in characters."""

_HEX_DIGITS: Final = frozenset("0123456789abcdefABCDEF")


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


def check_roll_number(number: int) -> int:
    """Return ``number`` if it is a whole number from 0 (a roll's number in its game), else raise ``ValueError``."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise ValueError(f"a roll number is a whole number from 0, got {number!r}")
    return number


def check_roll(roll: Any) -> tuple[int, int]:
    """Return ``roll`` as a pair if it is two dice of 1 to 6, else raise ``ValueError``."""
    if not isinstance(roll, (tuple, list)) or len(roll) != 2:
        raise ValueError(f"a roll is two dice, got {roll!r}")
    for die in roll:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise ValueError(f"a die shows a whole number from 1 to 6, got {die!r}")
    return (roll[0], roll[1])


def commitment(seed: str) -> str:
    """The SHA-256 of the seed's 32 bytes, as 64 lowercase hex digits: published before the game."""
    return hashlib.sha256(bytes.fromhex(check_seed(seed))).hexdigest()


def digest_blocks(seed: str, client_seeds: tuple[str, str], number: int) -> Iterator[bytes]:
    """The endless stream of HMAC-SHA256 blocks that roll ``number`` is read from (step 3).

    The arguments are checked at once, before the first block is asked for.
    """
    key = bytes.fromhex(check_seed(seed))
    first, second = client_seeds
    message = f"{check_client_seed(first)}:{check_client_seed(second)}:{check_roll_number(number)}".encode()
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
