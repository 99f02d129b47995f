"""The rules of every nardy variant: pure, standard library only.

This package is the one place that decides legality, dice usage, game end and
scoring; the server, the bots, the CLI and the client all ask it.
"""

from nardy.rules.board import BAR, DICE_ROLLS, MAX_CHECKERS, NUM_POINTS, OFF
from nardy.rules.errors import (
    CubeError,
    IllegalActionError,
    IllegalPlayError,
    IllegalStepError,
    InvalidDiceError,
    InvalidPositionError,
    RulesError,
    UnknownVariantError,
    WrongTurnError,
)
from nardy.rules.cube import MAX_CUBE, Cube, MatchContext
from nardy.rules.events import (
    Beavered,
    Doubled,
    Dropped,
    GameEvent,
    GameResult,
    Moved,
    OpeningRolled,
    Passed,
    PlayEvent,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Stepped,
    Tied,
    TimedOut,
    Took,
    Undone,
)
from nardy.rules.game import Game, Phase
from nardy.rules.match import MAX_TIMEOUTS, Match
from nardy.rules.movegen import Step
from nardy.rules.position import Play, Position
from nardy.rules.turn import Turn, whole_play
from nardy.rules.variant import GameOptions, Variant, WinKind
from nardy.rules.variants import VARIANTS, find_variant

__all__ = [
    "BAR", "DICE_ROLLS", "MAX_CHECKERS", "NUM_POINTS", "OFF",
    "CubeError", "IllegalActionError", "IllegalPlayError", "IllegalStepError",
    "InvalidDiceError", "InvalidPositionError", "RulesError", "UnknownVariantError",
    "WrongTurnError", "Step", "Play", "Position", "GameOptions", "Variant", "WinKind",
    "VARIANTS", "find_variant", "MAX_CUBE", "Cube", "MatchContext", "Game", "Phase",
    "Match", "MAX_TIMEOUTS", "Turn", "whole_play", "GameEvent", "GameResult", "OpeningRolled", "Rolled", "Moved",
    "Passed", "Doubled", "Took", "Beavered", "Dropped", "ResignationOffered",
    "ResignationDeclined", "Resigned", "PlayEvent", "Stepped", "Tied", "Undone", "TimedOut",
]
