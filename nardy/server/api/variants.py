"""``GET /api/variants``: what a client needs to know of each variant and of the clocks, from the rules.

The browser client keeps no rule data of its own: the variants it offers, their
match lengths, money play, cube options, the moves-final default, whether a chouette is played, the computer's
levels (and those of hints and the analysis board), how the opponent's numbers turn onto one's own board and the names of
the wins all come from here, read from :mod:`nardy.rules` (and the computer's
levels from :mod:`nardy.bots`), and the clocks from the choices the table API
accepts. The answer changes only with a deploy, so it carries an ``ETag`` and
may be cached; a request naming the current ``ETag`` in ``If-None-Match`` is
answered 304 without a body.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Final

import orjson
from fastapi import APIRouter, Request, Response

from nardy.bots import levels_for
from nardy.bots.hints import analysis_offer
from nardy.notation import sgf
from nardy.rules import VARIANTS, Variant
from nardy.rules.chouette import chouette_refusal
from nardy.server.api.bounds import LONGEST_MATCH
from nardy.server.services.matchmaking import pairing_lengths
from nardy.server.settings import (
    BANK_CLOCK_CHOICES,
    CORRESPONDENCE_DAYS_CHOICES,
    DEFAULT_BANK_CLOCK,
    MOVE_SECONDS_CHOICES,
)

router = APIRouter(prefix="/api", tags=["variants"])

CACHE_CONTROL: Final = "public, max-age=3600, must-revalidate"
"""An hour without asking, then a revalidation by ``ETag`` (a deploy may have changed the answer)."""


def variant_json(variant: Variant) -> dict[str, Any]:
    """One variant as ``GET /api/variants`` describes it (docs/protocol.md)."""
    cube = variant.cube_rules
    return {
        "id": variant.name,
        "title": variant.title,
        "family": variant.family,
        "group": variant.group,
        "games": [game.name for game in variant.games] or None,
        "checkers": variant.checkers,
        "topology": variant.board,
        "opponent_points": list(variant.topology.opponent_numbers()),
        "match_lengths": list(variant.match_lengths) if variant.match_lengths is not None else None,
        "pairing_lengths": pairing_lengths(variant.name),
        "longest_match": LONGEST_MATCH,
        "money_play": variant.money_play,
        "cube": {
            "allowed": cube.allowed, "required": cube.required, "jacoby": cube.jacoby,
            "automatic_doubles": cube.automatic_doubles, "beavers": cube.beavers,
        },
        "moves_final": variant.moves_final,
        "chouette": chouette_refusal(variant) is None,
        "levels": list(levels_for(variant.name)),
        "analysis": _analysis_json(variant.name),
        "scoring": {
            "kinds": [str(kind) for kind in variant.win_kinds],
            "backgammon_values": list(variant.backgammon_values),
        },
        "match_files": ["mat", "sgf"] if sgf.holds(variant) else ["mat"],
    }


def _analysis_json(variant: str) -> dict[str, Any]:
    """What hints and the analysis board offer in ``variant``: their levels, or none and the reason's code."""
    offer = analysis_offer(variant)
    return {"levels": list(offer.levels), "unavailable": offer.unavailable}


def _bank_clock(delay: int, bank: int) -> dict[str, int]:
    return {"delay_seconds": delay, "bank_seconds_per_point": bank}


def clocks_json() -> dict[str, Any]:
    """The time controls a table may be created with (the same for every variant)."""
    return {
        "move_seconds": list(MOVE_SECONDS_CHOICES),
        "correspondence_days": list(CORRESPONDENCE_DAYS_CHOICES),
        "bank": [_bank_clock(delay, bank) for delay, bank in BANK_CLOCK_CHOICES],
        "default_bank": _bank_clock(*DEFAULT_BANK_CLOCK),
    }


@functools.cache
def _encoded() -> tuple[bytes, str]:
    """The answer's body and its ETag, worked out once per process (they change only with a deploy)."""
    body = orjson.dumps({"variants": [variant_json(v) for v in VARIANTS.values()], "clocks": clocks_json()})
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@router.get("/variants")
async def variants(request: Request) -> Response:
    """Every variant the server plays, in the order it offers them, and the clocks it offers."""
    body, etag = _encoded()
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
    wanted = request.headers.get("if-none-match", "")
    if etag in (tag.strip() for tag in wanted.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(content=body, media_type="application/json", headers=headers)
