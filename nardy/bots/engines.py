"""Which engine plays each variant: a table of the bots, not a property of the board.

Three engines can play our variants: ``bgsage`` (:mod:`nardy.bots.sage`, the
backgammon engine rating our legal plays), ``network`` (our TD-trained
networks with their search, :mod:`nardy.bots.neural`) and ``heuristic``
(a hand-written score, :mod:`nardy.bots.heuristic`, :mod:`nardy.bots.pin_heuristic`).
A variant maps to one of them by what its rules are, not by its board: plakoto
is played on the short board but has pins bgsage cannot see, so our network
trained on plakoto plays it. Where the engine was made for other rules than
the variant's, the entry says so in ``stand_in``, and docs/strength.md measures it.
Our networks are cubeless: where such a variant has the cube (hypergammon),
``cube`` names the engine that answers the cube questions.

>>> engine_for("plakoto").kind, engine_for("tavla").kind
('network', 'bgsage')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from nardy.rules import find_variant

EngineKind = Literal["bgsage", "network", "heuristic"]


@dataclass(frozen=True, slots=True)
class EngineChoice:
    """The engine of one variant; ``stand_in``: why it is only the nearest engine there is, or ``None``;
    ``cube``: the engine of the cube decisions where it is not ``kind`` (a network variant with the cube)."""

    kind: EngineKind
    stand_in: str | None = None
    cube: Literal["bgsage"] | None = None


_BGSAGE: Final = EngineChoice("bgsage")
_NETWORK: Final = EngineChoice("network")

ENGINES: Final[dict[str, EngineChoice]] = {
    "backgammon": _BGSAGE,
    "dave": _BGSAGE,
    "georgian": _BGSAGE,
    "nackgammon": _BGSAGE,
    "tavla": EngineChoice("bgsage", "bgsage's networks know backgammon, not tavla's home-board hit rule"),
    "portes": _BGSAGE,
    "hypergammon": EngineChoice("network", cube="bgsage"),
    "plakoto": _NETWORK,
    "long-traditional": _NETWORK,
    "long-tournament": _NETWORK,
    "long-bolshie": _NETWORK,
    "fevga": _NETWORK,
}
"""Each registered variant's engine (tests check that every variant has one and plakoto never meets bgsage); a
match of rotating games (tavli) has none of its own, each game's rule set being played by its engine.
Hypergammon's checkers are played by its own network; its cube decisions stay bgsage's, which reads three
checkers as fifteen with twelve borne off (docs/strength.md, "Hypergammon's network")."""


def engine_for(variant: str) -> EngineChoice:
    """The engine that plays ``variant`` (a registered name); ValueError for a variant no engine plays."""
    rules = find_variant(variant)
    choice = ENGINES.get(rules.name)
    if choice is None:
        raise ValueError(f"no computer player plays {rules.name}")
    return choice


__all__ = ["ENGINES", "EngineChoice", "EngineKind", "engine_for"]
