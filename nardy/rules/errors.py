"""The errors of the rules engine.

Every error is a ``ValueError`` whose message names the problem, so callers
(the CLI, the server) can show it to a person unchanged.
"""


class RulesError(ValueError):
    """Base class of every error raised by :mod:`nardy.rules`."""


class InvalidPositionError(RulesError):
    """A position that cannot exist: wrong checker count, bad point list, ..."""


class InvalidDiceError(RulesError):
    """Dice that are not two numbers from 1 to 6."""


class UnknownVariantError(RulesError):
    """A variant name that is not in the registry."""


class IllegalStepError(RulesError):
    """A single checker move that no legal play of the roll begins with."""


class IllegalPlayError(RulesError):
    """A whole play (a sequence of steps) that the roll does not allow."""


class WrongTurnError(RulesError):
    """An action by a player who is not the one to act."""


class IllegalActionError(RulesError):
    """A game or match action that the current state does not allow."""


class CubeError(IllegalActionError):
    """A cube action that is not available; the message says why."""
