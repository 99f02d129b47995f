"""Fair play on the server: each analysed rated match feeds the detector, whose findings wait for a moderator.

When the analysis of a table finishes, in the worker process that ran it (:mod:`nardy.server.services.analysis_job`,
or a ``nardy worker analysis`` process), :func:`review` keeps each rated
player's figures (:func:`nardy.bots.fair_play.game_figures`) and judges the
account over its latest analysed rated matches in the variant (its
:func:`~nardy.bots.fair_play.window`) against the accounts of a similar rating: those
whose current rating in the variant's family lies within :data:`BANDS`
points of its own, the narrowest band holding
:data:`~nardy.bots.fair_play.MIN_REFERENCE` accounts with enough games
(without one, no verdict). A flagged account goes into ``fair_play_flags``
with its evidence, once until a moderator has reviewed it. Nothing here
bans, blocks or changes an account (docs/fair-play.md).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Final

from sqlalchemy.orm import Session

from nardy.bots.fair_play import (
    MAX_GAMES,
    AccountFigures,
    GameFigures,
    Verdict,
    account_figures,
    game_figures,
    judge,
    reference_of,
    window,
)
from nardy.server.services.ratings import family_of
from nardy.store import fair_play_repo, tables_repo
from nardy.store.models import FairPlayGame

log = logging.getLogger(__name__)

STATISTIC: Final = "min_robust_z"
"""The name flags give the statistic (:func:`nardy.bots.fair_play.judge`)."""

BANDS: Final[tuple[float, ...]] = (100.0, 200.0, 400.0)
"""Half-widths of the rating bands tried, narrowest first, for a reference of enough accounts."""


def review(db: Session, *, table_id: str, result: dict[str, Any], level: str, now: datetime) -> list[int]:
    """Keep the rated players' figures of a table's first analysis and judge them; the accounts flagged now.

    Does nothing for a table whose match was not rated, for a chouette's
    analysis, or when the figures were kept already (an analysis run again).
    """
    if "games" not in result or fair_play_repo.has_games(db, table_id):
        return []
    rated = fair_play_repo.rated_players(db, table_id)
    table = tables_repo.get_table(db, table_id)
    if not rated or table is None:
        return []
    players = [(seat, user_id) for seat, user_id in enumerate((table.player0_id, table.player1_id))
               if user_id is not None and user_id in rated]
    for seat, user_id in players:
        figures = game_figures(result, seat)
        fair_play_repo.add_game(db, table_id=table_id, user_id=user_id, variant=table.variant, level=level,
                                counted=figures.counted, total_loss=figures.total_loss,
                                unforced_moves=figures.unforced_moves, best_moves=figures.best_moves,
                                played_at=rated[user_id])
    db.flush()
    flagged = []
    for _, user_id in players:
        verdict = _judge_account(db, user_id, table.variant)
        if verdict is None or not verdict.flagged or fair_play_repo.open_flag(db, user_id=user_id,
                                                                              variant=table.variant):
            continue
        games = _windows(db, [user_id], table.variant)[user_id]
        fair_play_repo.add_flag(
            db, user_id=user_id, variant=table.variant, statistic=STATISTIC, value=verdict.statistic,
            threshold=verdict.threshold, games=verdict.figures.games,
            evidence={**verdict.evidence(), "tables": [game.table_id for game in games]}, now=now,
        )
        log.info("fair play: account %s flagged in %s (%.2f)", user_id, table.variant, verdict.statistic)
        flagged.append(user_id)
    db.commit()
    return flagged


def _judge_account(db: Session, user_id: int, variant: str) -> Verdict | None:
    family = family_of(variant)
    own = fair_play_repo.rating(db, user_id=user_id, family=family)
    mine = _windows(db, [user_id], variant).get(user_id, [])
    if own is None or not mine:
        return None
    figures = account_figures(_figures(row) for row in mine)
    for width in BANDS:
        peers = fair_play_repo.rated_between(db, family=family, low=own - width, high=own + width)
        games = _windows(db, peers, variant)
        reference = reference_of([_summed(rows) for rows in games.values()])
        if reference is not None:
            return judge(figures, reference)
    return None


def _windows(db: Session, user_ids: list[int], variant: str) -> dict[int, list[FairPlayGame]]:
    """Each account's window of analysed matches in ``variant``, newest first."""
    latest = fair_play_repo.latest(db, user_ids=user_ids, variant=variant, per_user=MAX_GAMES)
    return {user_id: window(rows) for user_id, rows in latest.items()}


def _summed(rows: list[FairPlayGame]) -> AccountFigures:
    return account_figures(_figures(row) for row in rows)


def _figures(row: FairPlayGame) -> GameFigures:
    return GameFigures(row.counted, row.total_loss, row.unforced_moves, row.best_moves)
