"""The doubling cube (seed 000; restrictions of seed 003) and the match context it depends on."""

from __future__ import annotations

from dataclasses import dataclass, replace

from nardy.rules.errors import CubeError

MAX_CUBE = 64


@dataclass(frozen=True, slots=True)
class MatchContext:
    """What a game needs to know about its match: length (0 = money play), score, Crawford."""

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False

    def away(self, player: int) -> int:
        """Points ``player`` still needs to win the match (0 in money play)."""
        return max(self.length - self.score[player], 0) if self.length else 0


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube's value and owner (``None`` = centred, anyone may double)."""

    value: int = 1
    owner: int | None = None

    @property
    def centred(self) -> bool:
        """True while nobody owns the cube."""
        return self.owner is None

    def refusal(self, player: int, *, context: MatchContext, dave: bool, first_turn: bool) -> str | None:
        """Why ``player`` may not double now, or ``None`` when the double is allowed.

        Covers ownership and the 64 cap (000), the Crawford game, a 1-point
        match in every variant, and with ``dave`` the three restrictions of
        003. In a 1-point match both players are one point from winning, and
        003 says: «If a player is 1 point away from winning the match, he
        won't be given an option to offer a double» (docs/rules.md).
        """
        if context.crawford:
            return "this is the Crawford game: the cube is out of play"
        if context.length == 1:
            return "a 1-point match: both players are one point from winning it, so no double is offered"
        if self.owner is not None and self.owner != player:
            return "only the cube's owner may redouble"
        if self.value >= MAX_CUBE:
            return f"the cube is already at its maximum of {MAX_CUBE}"
        if dave:
            if first_turn:
                return "no double on the game's first turn"
            if context.length and context.away(player) == 1:
                return "a player one point from winning the match may not double"
            if context.length and self.value >= context.away(player):
                return "the cube already wins the match for you: no further double"
        return None

    def check(self, player: int, *, context: MatchContext, dave: bool, first_turn: bool) -> None:
        """Raise :class:`CubeError` naming why ``player`` may not double."""
        reason = self.refusal(player, context=context, dave=dave, first_turn=first_turn)
        if reason is not None:
            raise CubeError(reason)

    def taken(self, taker: int, factor: int = 2) -> Cube:
        """The cube after a take (``factor`` 2) or a beaver (``factor`` 4): the taker owns it."""
        return replace(self, value=min(self.value * factor, MAX_CUBE), owner=taker)
