"""Virtual coins at two-seat tables: what a table can cost, and the coin writes of its events.

Coins are a game currency, not money (seed 002: «это не деньги, она не
продаётся и не обменивается на деньги»): nobody can buy, sell or exchange
them. Every account starts with a grant and gets a top-up once per UTC day,
credited the first time its coins are used or looked at that day.

A coin table is a match to N points (1 or more) with a stake per point.
The match is the bet: its winner, however it is won (by score, a
resignation, a passed double, three timeouts or a forfeit), receives
N × stake from the loser. Gammons, backgammons and the cube (up to 64,
seed 000) change how fast a match is won but never what it is worth, since
the rules stop a match at N points, so N × stake is the most either player
can lose. Money play has no end at which a result is known and no bound on
what a session can cost, so it cannot be played for coins.

The table's most-possible loss is held (set aside) from each player's coins
when they sit down, in the same transaction as their ``seated`` event (the
creator's with the new table's row, so a creator who cannot cover it leaves
no table behind); a player whose free coins do not cover it cannot sit. The hold is given back
when they leave a waiting table, and at the match end the loser pays the
winner and both holds are released, in the same transaction as the
``match_ended`` event. So balances never go negative, however many coin
tables one player sits at, and a restart changes nothing: the holds and
the ledger are rows, the table's state is its event log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from sqlalchemy.orm import Session

from nardy.server.services.table_state import ActionError, TableState
from nardy.server.settings import DAILY_TOP_UP, STARTING_GRANT, Settings
from nardy.store import coins_repo
from nardy.store.coins_repo import Balance
from nardy.store.tables_repo import StoredEvent

COIN_EVENTS: Final = frozenset({"seated", "left", "match_ended"})
"""The event kinds whose append may move coins (:func:`write_table_coins`); no other append touches them."""


@dataclass(frozen=True, slots=True)
class CoinPolicy:
    """How many coins an account starts with, and gets each UTC day."""

    starting_grant: int = STARTING_GRANT
    daily_top_up: int = DAILY_TOP_UP

    @classmethod
    def configured(cls, settings: Settings) -> CoinPolicy:
        """The policy the server was configured with (``NARDY_COINS_STARTING_GRANT``, ``NARDY_COINS_DAILY_TOP_UP``)."""
        return cls(starting_grant=settings.coins_starting_grant, daily_top_up=settings.coins_daily_top_up)


def refuse_guest(is_guest: bool) -> None:
    """Coin tables seat account holders only: a guest has no coins."""
    if is_guest:
        raise ActionError("account_required", "coin tables are for players with an account: sign up to get coins")


def utc_day(at: datetime) -> str:
    """The UTC date of ``at`` (an aware time) as ISO text: the unit of the daily top-up."""
    return at.astimezone(UTC).date().isoformat()


def refresh_account(db: Session, user_id: int, policy: CoinPolicy, at: datetime) -> Balance:
    """``user_id``'s coins after opening their account (the starting grant) and today's top-up, if due."""
    today = utc_day(at)
    if not coins_repo.open_account(db, user_id, grant=policy.starting_grant, today=today, at=at):
        coins_repo.top_up(db, user_id, amount=policy.daily_top_up, today=today, at=at)
    balance = coins_repo.balance_of(db, user_id)
    assert balance is not None
    return balance


def write_table_coins(
    db: Session, *, before: TableState, events: Sequence[StoredEvent], after: TableState, policy: CoinPolicy,
    at: datetime,
) -> None:
    """The coin writes of ``events`` appended to a coin table, in the caller's transaction.

    A person sitting down holds the table's most-possible loss, the whole
    match's ``coins_at_stake`` (refused with
    ``not_enough_coins`` when their free coins do not cover it, and then
    nothing of the transaction is written); leaving a waiting table gives it
    back; the match end moves the match's coins from loser to winner and
    releases both holds.
    """
    spec = after.spec
    if not spec.stake:
        return
    for event in events:
        if event.kind == "seated" and event.payload.get("user_id") is not None:
            sit_down(db, event.payload["user_id"], table_id=after.id, amount=spec.coins_at_stake, policy=policy,
                      at=at)
        elif event.kind == "left":
            seat = before.seats[event.payload["seat"]]
            if seat is not None and seat.user_id is not None:
                coins_repo.release(db, seat.user_id, table_id=after.id)
        elif event.kind == "match_ended":
            _settle(db, after, event, at)


def sit_down(db: Session, user_id: int, *, table_id: str, amount: int, policy: CoinPolicy, at: datetime) -> None:
    """Hold ``amount`` of ``user_id``'s coins at ``table_id`` (once: a hold already made stands).

    Raises ``not_enough_coins`` when their free coins do not cover it; the
    caller's transaction then writes nothing.
    """
    if user_id in coins_repo.held_at(db, table_id):
        return
    balance = refresh_account(db, user_id, policy, at)
    if not coins_repo.hold(db, user_id, table_id=table_id, amount=amount):
        elsewhere = f" ({balance.held} of your {balance.balance} are held at other coin tables)" if balance.held else ""
        raise ActionError(
            "not_enough_coins", f"this table can cost you up to {amount} coins and you have {balance.free}{elsewhere}",
        )


def _settle(db: Session, state: TableState, event: StoredEvent, at: datetime) -> None:
    """The match's coins from loser to winner; without a winner, both holds simply go back."""
    winner = event.payload.get("winner")
    users = [seat.user_id if seat is not None else None for seat in state.seats]
    winner_id = users[winner] if winner is not None else None
    loser_id = users[1 - winner] if winner is not None else None
    if winner_id is None or loser_id is None:
        for user_id in users:
            if user_id is not None:
                coins_repo.release(db, user_id, table_id=state.id)
        return
    coins_repo.transfer(
        db, table_id=state.id, winner_id=winner_id, loser_id=loser_id, amount=int(event.payload["coins"]), at=at,
    )
