"""Notation for nardy positions, plays and matches: canonical JSON, gnubg IDs, XGID, move text,
ASCII boards, and .mat and SGF match files.

Everything here reads or writes a representation of :mod:`nardy.rules`
objects and decides nothing about legality itself: parsing a play asks the
engine for the legal plays and picks the one the text describes.
"""

from nardy.notation.ascii_board import render
from nardy.notation.canonical import (
    PositionDict,
    position_from_dict,
    position_from_json,
    position_to_dict,
    position_to_json,
)
from nardy.notation.errors import NotationError
from nardy.notation.gnubg_id import (
    CubeOwner,
    GameState,
    MatchIdFields,
    Resignation,
    match_from_id,
    match_id,
    position_from_id,
    position_id,
)
from nardy.notation.json_codec import (
    StepDict,
    event_from_dict,
    event_to_dict,
    options_from_dict,
    options_to_dict,
    step_from_dict,
    step_to_dict,
)
from nardy.notation.matfile import transcript_from_mat, transcript_to_mat
from nardy.notation.movetext import format_steps, parse_play
from nardy.notation.sgf import transcript_from_sgf, transcript_to_sgf
from nardy.notation.xgid import CubeOffer, XgidFields, from_xgid, to_xgid

__all__ = [
    "NotationError", "PositionDict", "position_from_dict", "position_from_json", "position_to_dict",
    "position_to_json", "CubeOwner", "GameState", "MatchIdFields", "Resignation", "match_from_id",
    "match_id", "position_from_id", "position_id", "format_steps", "parse_play", "render",
    "CubeOffer", "XgidFields", "from_xgid", "to_xgid", "transcript_from_mat", "transcript_to_mat",
    "transcript_from_sgf", "transcript_to_sgf", "StepDict", "step_to_dict", "step_from_dict", "options_to_dict",
    "options_from_dict", "event_to_dict", "event_from_dict",
]
