"""What happens in a game, as plain immutable records.

A game's history is a tuple of these events; a game record, a replay and the
server's event log are all this list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from nardy.rules.movegen import Step
from nardy.rules.variant import WinKind


@dataclass(frozen=True, slots=True)
class OpeningRolled:
    """Each player rolled one die: ``dice[p]`` is player p's die."""

    dice: tuple[int, int]
    automatic_double: bool = False

    @property
    def first(self) -> int | None:
        """The player who plays first after this roll, the one with the higher die (000), or
        ``None`` when the dice tie and are rolled again."""
        if self.dice[0] == self.dice[1]:
            return None
        return 0 if self.dice[0] > self.dice[1] else 1


@dataclass(frozen=True, slots=True)
class Rolled:
    player: int
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Moved:
    player: int
    dice: tuple[int, int]
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Stepped:
    """One checker step of the turn in progress (:meth:`nardy.rules.turn.Turn.push`), not yet confirmed."""

    player: int
    step: Step


@dataclass(frozen=True, slots=True)
class Undone:
    """The last step of the turn in progress was taken back (:meth:`nardy.rules.turn.Turn.pop`)."""

    player: int


@dataclass(frozen=True, slots=True)
class Passed:
    """The roll had no legal play (recorded as ``pass``, seed 003)."""

    player: int
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Doubled:
    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Took:
    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Beavered:
    player: int
    value: int


@dataclass(frozen=True, slots=True)
class Dropped:
    player: int


@dataclass(frozen=True, slots=True)
class ResignationOffered:
    player: int
    kind: WinKind


@dataclass(frozen=True, slots=True)
class ResignationDeclined:
    player: int


@dataclass(frozen=True, slots=True)
class Resigned:
    """The game ended by resignation (accepted offer, or at once where no offer is made)."""

    player: int
    kind: WinKind


@dataclass(frozen=True, slots=True)
class Tied:
    """The play just before it tied the game (plakoto: both mothers pinned), which scores nothing and starts
    again from its opening roll (docs/rules.md §9); the tied game's events stay in the history before it."""


@dataclass(frozen=True, slots=True)
class TimedOut:
    """``player``'s time for a decision ran out; what is played for them follows as events of its own
    (004: «Если время истекает, сервер автоматически играет разрешённый ход»)."""

    player: int


GameEvent = (
    OpeningRolled | Rolled | Moved | Passed | Doubled | Took | Beavered | Dropped
    | ResignationOffered | ResignationDeclined | Resigned | Tied
)

PlayEvent = GameEvent | Stepped | Undone | TimedOut
"""Every change of a game and of its turn in progress: the game's history, the steps and undos of a turn
not yet confirmed, and timeouts."""

EndReason = Literal["bore-off", "dropped", "resigned", "mother"]
"""``mother``: plakoto's mother rule ended the game (docs/rules.md §9)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """The end of a game: who won, how, and the points it is worth (cube included)."""

    winner: int
    kind: WinKind
    points: int
    reason: EndReason
