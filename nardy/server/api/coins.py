"""Virtual coins over HTTP: one's own balance and ledger, a player's public balance, the coins leaderboard.

Coins are not money (seed 002): they are never bought, sold or exchanged,
and every answer says so in ``note``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request, status

from nardy.server.api.bounds import LARGEST_ROW_NUMBER
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.security import CurrentUser
from nardy.server.services.coins import CoinPolicy, refresh_account
from nardy.store import coins_repo, users_repo
from nardy.store.models import CoinMovement

router = APIRouter(prefix="/api", tags=["coins"])

NOTE = "Coins have no money value and cannot be bought or sold."
"""Said with every coin answer (seed 002: a virtual coin, not money)."""

LEADERBOARD_SIZE = 100


def _movement(row: CoinMovement) -> dict[str, Any]:
    return {
        "id": row.id, "amount": row.amount, "reason": row.reason, "table": row.table_id,
        "balance_after": row.balance_after, "at": row.at.isoformat(),
    }


@router.get("/coins")
def my_coins(
    request: Request,
    db: DbSession,
    user: CurrentUser,
    settings: SettingsDep,
    before: Annotated[int | None, Query(ge=1, le=LARGEST_ROW_NUMBER)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """The signed-in player's coins (opening the account, and today's top-up, if due) and a page of the ledger.

    ``held`` is set aside at the coin tables they sit at, ``free`` can be
    staked. The ledger comes newest first; ``next_before`` asks for the page
    after this one (null at the end).
    """
    if user.is_guest:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "guests have no coins: sign up to get coins")
    policy = CoinPolicy.configured(settings)
    balance = refresh_account(db, user.id, policy, request.app.state.clock.now())
    db.commit()
    rows = coins_repo.history(db, user.id, before=before, limit=limit)
    return {
        "user": user.username, "balance": balance.balance, "held": balance.held, "free": balance.free,
        "starting_grant": policy.starting_grant, "daily_top_up": policy.daily_top_up,
        "history": [_movement(row) for row in rows],
        "next_before": rows[-1].id if len(rows) == limit else None,
        "note": NOTE,
    }


@router.get("/users/{username}/coins")
def user_coins(username: str, db: DbSession, settings: SettingsDep) -> dict[str, Any]:
    """A player's coin balance, public like their ratings (the starting grant if they never used coins); none for
    a guest or a deleted account."""
    user = users_repo.by_name(db, username)
    if user is None or user.is_guest or user.deleted_at is not None:
        raise HTTPException(404, f"there is no player {username!r} with coins")
    balance = coins_repo.balance_of(db, user.id)
    return {
        "user": user.username,
        "balance": balance.balance if balance is not None else settings.coins_starting_grant,
        "note": NOTE,
    }


@router.get("/coins/leaderboard")
def coins_leaderboard(
    db: DbSession, limit: Annotated[int, Query(ge=1, le=LEADERBOARD_SIZE)] = LEADERBOARD_SIZE,
) -> dict[str, Any]:
    """The players with the most coins: rank, username, balance."""
    rows = coins_repo.leaderboard(db, limit=limit)
    return {
        "players": [{"rank": rank, "username": name, "balance": balance}
                    for rank, (name, balance) in enumerate(rows, start=1)],
        "note": NOTE,
    }
