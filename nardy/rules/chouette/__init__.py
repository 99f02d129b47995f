"""Chouette (seed 000): backgammon for three to eight players, the box against a team led by a captain; also played
in the variants that keep backgammon's cube and money play (:func:`chouette_refusal`)."""

from nardy.rules.chouette.game import (
    BOX_SIDE,
    TEAM_SIDE,
    ChouetteGame,
    ChouetteGameResult,
    ChouettePhase,
    Stake,
    chouette_refusal,
)
from nardy.rules.chouette.lineup import MAX_PLAYERS, MIN_PLAYERS, Formation, Lineup, PlayerId
from nardy.rules.chouette.session import Chouette

__all__ = [
    "BOX_SIDE", "TEAM_SIDE", "Chouette", "ChouetteGame", "ChouetteGameResult", "ChouettePhase",
    "Formation", "Lineup", "MAX_PLAYERS", "MIN_PLAYERS", "PlayerId", "Stake", "chouette_refusal",
]
