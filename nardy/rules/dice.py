"""Dice: validation and the moves a roll gives."""

from collections.abc import Sequence

from nardy.rules.errors import InvalidDiceError


def check_dice(dice: Sequence[int]) -> tuple[int, int]:
    """Return ``dice`` as a pair, or raise :class:`InvalidDiceError` naming why."""
    if isinstance(dice, (str, bytes)) or len(dice) != 2:
        raise InvalidDiceError(f"a roll is two dice, got {dice!r}")
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise InvalidDiceError(f"a die shows a whole number from 1 to 6, got {die!r}")
    return (dice[0], dice[1])


def moves_of(dice: Sequence[int]) -> tuple[int, ...]:
    """The single-checker moves a roll gives: two dice, or four of a double."""
    first, second = check_dice(dice)
    return (first,) * 4 if first == second else (first, second)


def is_double(dice: Sequence[int]) -> bool:
    """True when both dice show the same number."""
    first, second = check_dice(dice)
    return first == second
