"""Where a table's dice come from: seeds to commit to and the roll of each number.

The scheme itself, the public specification players verify their games with,
is :mod:`nardy.notation.fair_dice`; this module adds what only a running
server needs: fresh secret seeds, a scripted source for tests, and the counts
of a player's dice against fair ones.
"""

from __future__ import annotations

import math
import secrets
from collections import deque
from collections.abc import Iterable
from typing import Protocol, TypedDict

from nardy.notation.fair_dice import check_client_seed, check_roll, check_roll_number, check_seed, derive_dice


class ScriptExhaustedError(LookupError):
    """:class:`ScriptedDice` was asked for more rolls than it was given."""


class DiceSource(Protocol):
    """Where a game's dice come from: seeds to commit to, and the roll for each number."""

    def new_seed(self) -> str:
        """A fresh secret seed: 64 hex digits."""

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        """Roll ``number`` of the game with this seed and these client seeds."""


class ProvablyFairDice:
    """The production dice source: cryptographically random seeds, dice by :func:`~nardy.notation.fair_dice.derive_dice`."""

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
            self._script.append(check_roll(roll))

    @property
    def remaining(self) -> int:
        """How many scripted rolls have not been handed out yet."""
        return len(self._script)

    def clear(self) -> int:
        """Drop the rolls not handed out yet, so the next test starts with none whatever the last one left; how
        many they were."""
        dropped = len(self._script)
        self._script.clear()
        return dropped

    def new_seed(self) -> str:
        """A real random seed, as :class:`ProvablyFairDice` gives."""
        return secrets.token_bytes(32).hex()

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        """The next scripted roll; :class:`ScriptExhaustedError` when there is none left."""
        check_seed(seed)
        for client_seed in client_seeds:
            check_client_seed(client_seed)
        check_roll_number(number)
        if not self._script:
            raise ScriptExhaustedError(f"roll {number} was asked for, but the dice script is used up")
        return self._script.popleft()

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
        first, second = check_roll(roll)
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
