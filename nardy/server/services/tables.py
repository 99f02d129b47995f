"""Two-seat tables: what such a table is (:class:`MatchKind`), and the service that opens and serves them.

A table is served by its owner (:mod:`~nardy.server.services.table_owner`),
one per live table, through which every action, deadline, forfeit, rematch
and takeover passes, one at a time. This module says what a two-seat table
adds to that: :func:`~nardy.server.services.table_state.decide` checks an
action against the rules, the server's own follow-ups (opening rolls, game
and match ends, new seeds) join it in one batch, coins, finished games and
ratings are written with it in one transaction (a plain append shares a
grouped one), and only then is it published and the move clock armed. A
repeated ``action_id`` is answered with the version it was first applied at
and changes nothing.

The process that commits a change owns the table (``tables.owner``): it arms
the clock and plays the computer's turn that change begins. When it stops
answering, another process takes the table over
(:mod:`~nardy.server.services.peers`, :meth:`TableService.adopt`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.bots import Bot, level_offered, make_bot
from nardy.bots.fair_play import FAIR_PLAY_LEVEL
from nardy.bots.hints import analysis_offer
from nardy.notation.fair_dice import commitment
from nardy.rules import GameOptions, Phase, find_variant
from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services import moderation
from nardy.server.services.chat import ChatLimits, ChatService
from nardy.server.services.clock import Clock
from nardy.server.services.coins import COIN_EVENTS, CoinPolicy, refuse_guest, sit_down, write_table_coins
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.dice import DiceSource
from nardy.server.services.publisher import Publisher
from nardy.server.services.ratings import family_of, rated_match_rows
from nardy.server.services.table_owner import (
    FINISHED_SECONDS,
    IDLE_SECONDS,
    Commit,
    LiveTableReads,
    LiveTables,
    TableOwner,
)
from nardy.server.services.table_state import (
    ActionError,
    NewEvent,
    Roller,
    TableSpec,
    TableState,
    apply_event,
    decide,
    forced_events,
    initial_state,
    opening_event,
    step_dict,
    unrated_reason,
    view,
)
from nardy.server.settings import DEFAULT_BANK_CLOCK
from nardy.store import analyses_repo, tables_repo
from nardy.store.models import Analysis, FinishedGame, GameSeed, GameTable, Rating, RatingChange, User
from nardy.store.tables_repo import StoredEvent, VersionConflict

log = logging.getLogger(__name__)

__all__ = ["MatchKind", "TableService", "spec_from_row"]

TABLE_KIND = "match"
"""The ``tables.kind`` of a two-seat table (a chouette's is ``chouette``)."""

COMPUTER_IDLE_SECONDS = 3600.0
"""A game against the computer whose human has not acted for this long is ended: the human forfeits it."""

MATCH_ACTIONS = frozenset({
    "roll", "step", "undo", "confirm", "move", "double", "take", "drop", "beaver", "resign",
    "accept_resignation", "decline_resignation", "rematch", "client_seed", "leave", "chat_spectators",
})
"""The protocol actions a two-seat table decides (``docs/protocol.md``); its chat (``say``) is no event."""


def spec_from_row(row: GameTable) -> TableSpec:
    """A table's spec from its database row (its options hold the game's and ``moves_final``)."""
    options = dict(row.options)
    final = options.pop("moves_final", None)
    return TableSpec(
        variant=row.variant,
        match_length=row.match_length,
        options=GameOptions(**options),
        move_seconds=row.move_seconds,
        rated=row.rated,
        private=row.private,
        delay_seconds=row.delay_seconds,
        bank_seconds_per_point=row.bank_seconds_per_point,
        final=final,
        stake=row.stake,
    )


class BotFactory(Protocol):
    """Makes the computer player of a level for a variant (its engine is checked and loaded then)."""

    def __call__(self, level: str, *, variant: str) -> Bot: ...


class MatchKind:
    """What a two-seat table is, for its owner: its fold, decisions, follow-ups, write and view."""

    name = TABLE_KIND
    actions = MATCH_ACTIONS

    def __init__(self, *, db: DatabaseThreads, dice: DiceSource, coins: CoinPolicy, fair_play: bool = True) -> None:
        self._db = db
        self._dice = dice
        self.coins = coins
        self.fair_play = fair_play
        """Whether a rated match's end queues its background fair-play analysis."""
        self._random = random.SystemRandom()

    def initial(self, table_id: str, row: GameTable) -> TableState:
        return TableState(table_id, spec_from_row(row))

    def fold(self, state: TableState, event: NewEvent, at: datetime) -> TableState:
        return apply_event(state, event, at)

    def actor_key(self, state: TableState, user_id: int) -> str:
        return str(_seat_of(state, user_id))

    def decide(self, state: TableState, user_id: int, action: dict[str, Any], roller: Roller) -> list[NewEvent]:
        return decide(state, _seat_of(state, user_id), action, roller)

    def timed_out(self, state: TableState, roller: Roller, now: datetime) -> list[NewEvent]:
        """The actor times out (004); the rules play for them what the turn still needs."""
        seat = state.actor()
        if seat is None:
            return []
        timed_out = NewEvent("timed_out", seat)
        after = apply_event(state, timed_out, now)
        events = [timed_out]
        if after.match is not None and not after.match.is_over:
            events.extend(forced_events(after, seat, self._random, roller, now))
        return events

    def roll(self, state: TableState, seeds: dict[int, str], number: int) -> tuple[int, int]:
        return self._dice.roll(seeds[state.game_number], state.game_client_seeds, number)

    def render(self, state: TableState, now: datetime) -> dict[str, Any]:
        return view(state, now=now)

    def finished(self, state: TableState) -> bool:
        return state.status == "finished"

    async def store(self, commit: Commit[TableState]) -> None:
        """Coins, finished games and ratings ride in one transaction with the events; a plain append is grouped."""
        start, state, stored, now = commit.start, commit.state, commit.events, commit.at
        finished = [_finished_row(state, e.payload, now) for e in stored if e.kind == "game_ended"]
        ended = any(e.kind == "match_ended" for e in stored)
        summary = _summary_changes(start, state, now)
        if commit.seeds or finished or ended or any(e.kind in COIN_EVENTS for e in stored):
            def write(db: Session) -> None:
                write_table_coins(db, before=start, events=stored, after=state, policy=self.coins, at=now)
                ratings = _rating_rows(db, state, now) if ended else []
                background = _background_analysis(state, now) if ratings and self.fair_play else []
                tables_repo.append(
                    db, table_id=state.id, expected_version=start.version, events=stored, owner=commit.owner,
                    summary=summary, seeds=commit.seeds, finished=finished, extra_rows=[*ratings, *background],
                )

            await self._db.run(write)
        else:
            await self._append_grouped(state.id, start.version, stored, summary, commit.owner)

    async def _append_grouped(
        self, table_id: str, version: int, stored: list[StoredEvent], summary: dict[str, Any], owner: str,
    ) -> None:
        """A plain append (no coins, seeds, finished games or ratings ride with it), in a grouped transaction."""
        try:
            await self._db.grouped(table_id, partial(
                tables_repo.append_uncommitted, table_id=table_id, expected_version=version, events=stored,
                owner=owner, summary=summary,
            ))
        except IntegrityError:  # it ran alone and lost a race on the events' keys
            raise VersionConflict(table_id) from None

    def follow_up(self, state: TableState, seeds: dict[int, str], new_seeds: list[GameSeed]) -> NewEvent | None:
        """The next event the server adds by itself, if any.

        A game's dice seed is committed before that game's client seeds are
        fixed: game 1's when the table opens, game N+1's when game N starts,
        so a player who sets a fresh client seed after seeing a commitment
        knows the server could not have chosen its seed against it.
        """
        match = state.match
        if state.status == "finished" or (match is not None and match.is_over):
            return self._match_end(state, seeds)
        upcoming = state.game_number + 1
        if state.next_commitment is None or state.next_commitment[0] < upcoming:
            seed = self._dice.new_seed()
            seeds[upcoming] = seed
            new_seeds.append(GameSeed(table_id=state.id, number=upcoming, seed=seed, commitment=commitment(seed)))
            return NewEvent("seed_committed", None, {"number": upcoming, "commitment": commitment(seed)})
        if state.status == "waiting":
            if all(seat is not None for seat in state.seats):
                return NewEvent("match_started", None)
            return None
        assert match is not None
        if len(match.results) > state.games_announced:
            return self._game_end(state, seeds)
        if state.game_number < len(match.results) + 1:
            return NewEvent("game_started", None, {
                "number": upcoming,
                "commitment": state.next_commitment[1],
                "client_seeds": [s.client_seed if s is not None else "" for s in state.seats],
            })
        if match.game.ties > state.ties_announced:
            # the play tied the game (plakoto: both mothers pinned): said before it opens again (docs/rules.md §9)
            return NewEvent("game_tied", None, {"number": state.game_number})
        if match.game.phase is Phase.OPENING:
            dice = self._dice.roll(seeds[state.game_number], state.game_client_seeds, state.roll_number)
            return opening_event(match.game, dice, state.roll_number)
        return None

    def _match_end(self, state: TableState, seeds: dict[int, str]) -> NewEvent | None:
        match = state.match
        if match is None:
            return None
        if len(match.results) > state.games_announced:
            return self._game_end(state, seeds)
        if state.status == "playing":
            return NewEvent("match_ended", None, {
                "winner": match.winner, "reason": match.ended_by, "score": list(match.score),
                "rated": unrated_reason(state) is None and match.winner is not None,
                **({"coins": state.spec.coins_at_stake} if state.spec.stake else {}),
            })
        return None

    def _game_end(self, state: TableState, seeds: dict[int, str]) -> NewEvent:
        assert state.match is not None
        number = state.games_announced + 1
        result = state.match.results[number - 1]
        return NewEvent("game_ended", None, {
            "number": number,
            "white": state.whites[number - 1],
            "result": {"winner": result.winner, "kind": result.kind.value, "points": result.points,
                       "reason": result.reason},
            "seed": seeds.get(number),
            "commitment": commitment(seeds[number]) if number in seeds else None,
            "client_seeds": list(state.game_client_seeds),
        })


def _seat_of(state: TableState, user_id: int) -> int:
    seat = state.seat_of(user_id)
    if seat is None:
        raise ActionError("not_seated", "only the two players of this table can act on it")
    return seat


def _finished_row(state: TableState, data: dict[str, Any], now: datetime) -> FinishedGame:
    """The row of a game a batch ended (``data``: its ``game_ended`` payload); the seats are the batch's last.

    The row names the game's own variant: in a tavli match, the portes, plakoto or fevga it was played by.
    """
    white = data["white"]
    users = [s.user_id if s is not None else None for s in state.seats]
    variant = find_variant(state.spec.variant).game_variant(data["number"] - 1).name
    return FinishedGame(
        table_id=state.id, number=data["number"], variant=variant,
        white_id=users[white], black_id=users[1 - white],
        winner_colour="white" if data["result"]["winner"] == white else "black",
        kind=data["result"]["kind"], points=data["result"]["points"], reason=data["result"]["reason"],
        finished_at=now,
    )


LiveTable = TableOwner[TableState]
"""The owner of a two-seat table held in memory."""


class TableService(LiveTableReads[TableState]):
    """Opens two-seat tables, seats players and hands every action to the table's owner."""

    kind = TABLE_KIND

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        publisher: Publisher,
        dice: DiceSource,
        clock: Clock,
        process_id: str,
        chat_limits: ChatLimits,
        bot_factory: BotFactory = make_bot,
        bot_delay_seconds: float = 0.0,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
        computer_idle_seconds: float = COMPUTER_IDLE_SECONDS,
        coins: CoinPolicy = CoinPolicy(),
        fair_play: bool = True,
        metrics: Metrics = SILENT,
    ) -> None:
        self._db = db
        self._clock = clock
        self.process_id = process_id
        self.coins = coins
        """The coins an account starts with and gets each day (coin tables hold and move them)."""
        self.live = LiveTables(
            kind=MatchKind(db=db, dice=dice, coins=coins, fair_play=fair_play), db=db, publisher=publisher, clock=clock,
            process_id=process_id, begun=self._begun, idle_seconds=idle_seconds, finished_seconds=finished_seconds,
            metrics=metrics,
        )
        self.chat = ChatService(db=db, publisher=publisher, tables=self, clock=clock, limits=chat_limits)
        """The chat of the two-seat tables."""
        self.computer_idle_seconds = computer_idle_seconds
        """An untimed game against the computer whose human has not acted this long is forfeited by the human."""
        self._reaper: asyncio.Task[None] | None = None
        self._bot_factory = bot_factory
        self.bot_delay_seconds = bot_delay_seconds
        """The least time between a computer player's turn beginning and its action (people follow it better)."""

    # ----- lifecycle

    async def start(self) -> None:
        """Start the move clocks, the dropping of idle tables and the ending of abandoned computer games.

        The clocks and bots of tables nobody serves (after a restart, or when
        a process died) come through :meth:`adopt`.
        """
        self.live.start()
        self._reaper = asyncio.create_task(self._end_abandoned_periodically(), name="nardy-abandoned")

    async def stop(self) -> None:
        """Stop clocks, pending bot moves, the sweeping of idle tables and of abandoned computer games."""
        await self.live.stop()
        if self._reaper is not None:
            self._reaper.cancel()
            try:
                await self._reaper
            except asyncio.CancelledError:
                pass

    # ----- reading

    async def chat_history(self, table_id: str, user_id: int | None) -> list[dict[str, Any]]:
        """The last chat messages ``user_id`` (None: a visitor) may read, for a new subscriber."""
        return await self.chat.history(table_id, user_id, last=self.chat.limits.history) or []

    # ----- creating and joining

    async def create(
        self,
        *,
        user: User,
        spec: TableSpec,
        bot_level: str | None = None,
        client_seed: str | None = None,
        rematch_of: str | None = None,
        waiting_cap: int | None = None,
    ) -> TableState:
        """A new table with ``user`` in seat 0; with ``bot_level`` the bot takes seat 1 and play begins.

        A table against the computer is never rated (its spec is stored unrated)
        and never played for coins (the computer has none). With ``waiting_cap``
        it is refused (``too_many_tables``) to a player who would then hold more
        tables waiting for players.
        """
        if bot_level is not None:
            spec = replace(spec, rated=False)
            if spec.stake:
                raise ActionError("bad_settings", "the computer does not play for coins")
        if spec.rated:
            _account_for_rated(user)
        if spec.stake:
            refuse_guest(user.is_guest)
        table_id = secrets.token_urlsafe(12)
        state = initial_state(table_id, spec)
        if bot_level is not None:
            self._bot_factory(bot_level, variant=spec.variant)
        now = self._clock.now()
        row = self._new_row(
            table_id, spec, created_by=user.id, at=now, bot_seat=1 if bot_level else None, bot_level=bot_level,
            rematch_of=rematch_of,
        )
        await self._db.run(lambda session: self._add_table(session, row, user, spec, now, waiting_cap))
        seats = [self._seat_event(0, user, client_seed)]
        if bot_level is not None:
            seats.append(self._bot_seat_event(1, bot_level))
        return await self._seat_first(state, seats)

    async def open_between(self, first: User | str, second: User | str, *, spec: TableSpec) -> TableState:
        """A table whose two seats are taken at once, each by a person or a computer level: a tournament's match.

        Play begins at once, so the move clock runs from the start and a player
        who never comes loses on time. A table with a computer player is never
        rated; a bot against a bot plays itself out.
        """
        players = (first, second)
        bots = [p if isinstance(p, str) else None for p in players]
        if any(bots):
            spec = replace(spec, rated=False)
        for level in bots:
            if level is not None:
                self._bot_factory(level, variant=spec.variant)
        if spec.rated:
            for player in players:
                assert not isinstance(player, str)
                _account_for_rated(player)
        creator = next((p.id for p in players if not isinstance(p, str)), None)
        bot_seat = 1 if bots[1] is not None else 0 if bots[0] is not None else None
        table_id = secrets.token_urlsafe(12)
        row = self._new_row(
            table_id, replace(spec, private=False), created_by=creator, at=self._clock.now(), bot_seat=bot_seat,
            bot_level=bots[bot_seat] if bot_seat is not None else None,
        )
        await self._db.run(lambda session: tables_repo.add_table(session, row))
        seats = [
            self._bot_seat_event(seat, player) if isinstance(player, str) else self._seat_event(seat, player, None)
            for seat, player in enumerate(players)
        ]
        return await self._seat_first(initial_state(table_id, spec), seats)

    async def _seat_first(self, state: TableState, seats: list[NewEvent]) -> TableState:
        """Give the owner of a table just stored its first players; the state after them."""

        async def seat(owner: LiveTable) -> TableState:
            await owner.commit(seats, None)
            return owner.state

        return await self.live.open(state).ask(seat, fresh=False)

    async def join(self, table_id: str, *, user: User, client_seed: str | None = None) -> TableState:
        """Seat ``user`` in the free seat; when both are taken the match begins."""

        async def sit(owner: LiveTable) -> TableState:
            state = owner.state
            if state.status != "waiting":
                raise ActionError("not_open", "this table is not waiting for a player")
            if state.seat_of(user.id) is not None:
                return state
            free = [i for i, seat in enumerate(state.seats) if seat is None]
            if not free:
                raise ActionError("table_full", "both seats are taken")
            if state.spec.rated:
                _account_for_rated(user)
            if state.spec.stake:
                refuse_guest(user.is_guest)
            await owner.commit([self._seat_event(free[0], user, client_seed)], None)
            return owner.state

        return await self.live.send(table_id, sit)

    def _new_row(
        self, table_id: str, spec: TableSpec, *, created_by: int | None, at: datetime, bot_seat: int | None,
        bot_level: str | None, rematch_of: str | None = None,
    ) -> GameTable:
        """The row of a new table of ``spec``, waiting, owned by this process."""
        return GameTable(
            id=table_id, variant=spec.variant, match_length=spec.match_length, options=spec.options_dict(),
            move_seconds=spec.move_seconds, delay_seconds=spec.delay_seconds,
            bank_seconds_per_point=spec.bank_seconds_per_point, rated=spec.rated, private=spec.private,
            invite_token=secrets.token_urlsafe(16) if spec.private else None, created_by=created_by,
            created_at=at, status="waiting", version=0, bot_seat=bot_seat, bot_level=bot_level,
            rematch_of=rematch_of, owner=self.process_id, stake=spec.stake,
        )

    def _add_table(
        self, db: Session, row: GameTable, user: User, spec: TableSpec, now: datetime, waiting_cap: int | None,
    ) -> None:
        """Store a new table row, within ``waiting_cap``; at a coin table, in the same transaction, hold the
        creator's stake.

        Holding it here rather than with the creator's ``seated`` event means a
        creator who cannot cover the stake, or is at the cap, leaves no table behind.
        """
        if spec.stake:
            db.add(row)
            db.flush()
            sit_down(db, user.id, table_id=row.id, amount=spec.coins_at_stake, policy=self.coins, at=now)
        LiveTables.store_new_table(db, row, user_id=user.id, waiting_cap=waiting_cap)

    def _seat_event(self, seat: int, user: User, seed: str | None) -> NewEvent:
        """A person sits down (a guest says so: their results are never rated)."""
        return NewEvent("seated", seat, {
            "seat": seat, "user_id": user.id, "name": user.username, "bot": None, "guest": user.is_guest,
            "client_seed": seed or secrets.token_hex(16),
        })

    def _bot_seat_event(self, seat: int, level: str) -> NewEvent:
        """The computer sits down at ``level``."""
        return NewEvent("seated", seat, {
            "seat": seat, "user_id": None, "name": f"Computer ({level})", "bot": level, "guest": False,
            "client_seed": secrets.token_hex(16),
        })

    # ----- actions

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Apply a player's action, or send their chat message (``say``); the table's version after it. Raises
        ActionError.

        The seat acting is the one ``user_id`` holds in the state the action
        is decided on (see :meth:`~nardy.server.services.table_owner.TableOwner.act`).
        """
        if action["t"] == "say":
            return await self.chat.say(table_id, user_id=user_id, action=action, action_id=action_id)
        if action["t"] == "rematch":
            await self._refuse_rematch_apart(table_id, user_id)
        return await self.live.act(table_id, user_id=user_id, action=action, action_id=action_id)

    async def _refuse_rematch_apart(self, table_id: str, user_id: int) -> None:
        """A rematch seats the same two players again: refused ``blocked`` when either blocks the other
        (``docs/moderation.md``), so it is neither offered nor accepted."""
        state = await self.current(table_id)
        others = [s.user_id for s in state.seats if s is not None and s.user_id is not None and s.user_id != user_id]
        if not others:
            return
        now = self._clock.now()
        refusal = await self._db.run(lambda db: moderation.sitting_refusal(db, user_id, others, now))
        if refusal is not None:
            raise ActionError(*refusal)

    async def on_deadline(self, table_id: str, deadline: datetime) -> None:
        """The clock ran out for the table's actor: time them out (004) if the deadline still stands."""
        await self.live.on_deadline(table_id, deadline)

    # ----- abandoned games against the computer

    async def end_abandoned(self, now: datetime | None = None) -> list[str]:
        """End every untimed game against the computer whose human has not acted for ``computer_idle_seconds``.

        The human forfeits (a ``forfeited`` event with ``reason`` ``abandoned``,
        so the record and the replay end as after *Leave*). Every server process
        runs this: a table is first claimed by a conditional UPDATE that only
        one of them wins, and the forfeit is appended under the version check
        like any action, so it is decided once. A table that changed since it
        was found, or whose computer is the one to act, is left alone. Returns
        the tables ended.
        """
        now = now if now is not None else self._clock.now()
        before = now - timedelta(seconds=self.computer_idle_seconds)
        found = await self._db.run(lambda db: tables_repo.idle_computer_tables(db, active_before=before))
        ended = []
        for idle in found:
            claimed = await self._db.run(partial(tables_repo.claim_idle, table=idle, now=now))
            if claimed and await self._forfeit_abandoned(idle.table_id, idle.version):
                log.info("table %s against the computer ended: abandoned since %s", idle.table_id, idle.active_at)
                ended.append(idle.table_id)
        return ended

    async def _forfeit_abandoned(self, table_id: str, version: int) -> bool:
        """The human at ``table_id`` forfeits, if the table is still at ``version`` and waits for them."""

        async def forfeit(owner: LiveTable) -> bool:
            state = owner.state
            actor = state.actor()
            seat = state.seats[actor] if actor is not None else None
            if state.version != version or actor is None or seat is None or seat.bot is not None:
                return False
            try:
                await owner.commit([NewEvent("forfeited", actor, {"reason": "abandoned"})], None)
            except VersionConflict:
                return False
            return True

        return await self.live.send(table_id, forfeit)

    async def _end_abandoned_periodically(self) -> None:
        period = max(1.0, min(60.0, self.computer_idle_seconds / 10))
        while True:
            await asyncio.sleep(period)
            try:
                await self.end_abandoned()
            except Exception:
                log.exception("ending abandoned games against the computer failed")

    # ----- what a change begins: a computer's turn, a rematch

    def _begun(self, owner: LiveTable) -> None:
        """After a change this process made (or a table it took over): start the computer's turn it begins, and
        open the rematch both players asked for."""
        state = owner.state
        actor = state.actor()
        acting = state.seats[actor] if actor is not None else None
        if actor is not None and acting is not None and acting.bot:
            self.live.hold(owner, self._bot_turn(owner, actor, state.version))
        bots = {seat for seat, info in enumerate(state.seats) if info is not None and info.bot}
        wanted = state.rematch_offers and (state.rematch_offers | bots) == {0, 1}
        if state.status == "finished" and wanted and state.rematch_table is None:
            self.live.hold(owner, self._create_rematch(owner))

    async def _bot_turn(self, owner: LiveTable, seat: int, version: int) -> None:
        """The computer in ``seat`` thinks (off the event loop, the table free meanwhile), then sends its action."""
        state = owner.state
        seat_info = state.seats[seat]
        if seat_info is None or seat_info.bot is None or state.version != version:
            return
        game = state.game
        # the bot of the game in play: in tavli each game has its own rule set (portes, plakoto, fevga)
        variant = game.variant.name if game is not None else state.spec.variant
        bot = self._bot_factory(level_offered(seat_info.bot, variant=variant), variant=variant)
        loop = asyncio.get_running_loop()
        began = loop.time()
        action = await loop.run_in_executor(None, _bot_action, bot, state, seat)
        await asyncio.sleep(self.bot_delay_seconds - (loop.time() - began))

        async def play(owner: LiveTable) -> int:
            return await owner.act(
                lambda _: f"{seat}:bot-{version}", lambda state: decide(state, seat, action, owner.roller()),
            )

        try:
            await owner.ask(play, fresh=False)
        except ActionError as error:
            log.warning("bot action %s on table %s refused: %s", action, state.id, error)

    async def _create_rematch(self, owner: LiveTable) -> None:
        """Open the rematch (its players seated as they can be), then record it at the finished table."""
        state = owner.state
        players = list(state.seats)
        creator = players[0]
        if creator is None or creator.user_id is None:
            return
        user = await self._db.run(lambda session: session.get(User, creator.user_id))
        if user is None:
            return
        second_id = players[1].user_id if players[1] is not None else None
        if second_id is not None and await self._db.run(lambda db: moderation.kept_apart(db, user.id, second_id)):
            log.info("no rematch of table %s: one player blocked the other since they asked", state.id)
            return
        spec = state.spec
        bot = players[1].bot if players[1] is not None else None
        bot_level = level_offered(bot, variant=spec.variant) if bot is not None else None
        if spec.rated and not spec.has_bank_clock:  # opened before rated tables needed a clock: the standard one
            delay, bank = DEFAULT_BANK_CLOCK
            spec = replace(spec, move_seconds=None, delay_seconds=delay, bank_seconds_per_point=bank)
        try:
            new = await self.create(user=user, spec=spec, bot_level=bot_level, rematch_of=state.id)
        except ActionError as error:  # the creator cannot cover the stake any more: no rematch
            log.info("no rematch of table %s: %s", state.id, error)
            return
        second = players[1]
        if bot_level is None and second is not None and second.user_id is not None:
            other = await self._db.run(lambda session: session.get(User, second.user_id))
            if other is not None:
                try:
                    await self.join(new.id, user=other)
                except ActionError as error:  # they cannot cover it: the rematch waits for them, or another
                    log.info("rematch %s of table %s left open: %s", new.id, state.id, error)

        async def record(owner: LiveTable) -> None:
            if owner.state.rematch_table is None:
                await owner.commit([NewEvent("rematch_created", None, {"table": new.id})], None)

        await owner.ask(record)


def _account_for_rated(user: User) -> None:
    """Rated tables seat account holders only: a guest's rating would belong to nobody (004)."""
    if user.is_guest:
        raise ActionError("account_required", "rated tables are for players with an account: sign up, or play unrated")


def _rating_rows(db: Session, state: TableState, now: datetime) -> list[Rating | RatingChange]:
    """The rating rows of a match that just ended, or none if it is not rated (004).

    Rated exactly when :func:`~nardy.server.services.table_state.unrated_reason`
    finds nothing against it, the rule the table's view shows from before the
    match starts. Timeouts and forfeits already end the match as a loss.
    """
    match = state.match
    if match is None or match.winner is None or unrated_reason(state) is not None:
        return []
    winner, loser = state.seats[match.winner], state.seats[1 - match.winner]
    assert winner is not None and loser is not None and winner.user_id is not None and loser.user_id is not None
    return rated_match_rows(
        db, family=family_of(state.spec.variant), winner_user_id=winner.user_id, loser_user_id=loser.user_id,
        length=state.spec.match_length, at=now, table_id=state.id,
    )


def _background_analysis(state: TableState, now: datetime) -> list[Analysis]:
    """The fair-play analysis of a rated match that just ended, queued behind users' requests at
    :data:`~nardy.bots.fair_play.FAIR_PLAY_LEVEL` (docs/fair-play.md); none where the engine rates no equities."""
    if not analysis_offer(state.spec.variant).levels:
        return []
    return [analyses_repo.background(table_id=state.id, level=FAIR_PLAY_LEVEL, now=now)]


def _summary_changes(start: TableState, state: TableState, now: datetime) -> dict[str, Any]:
    """The summary columns ``state`` changes since ``start``, all of them for a table's first events.

    A column left out of the UPDATE costs nothing: set, even to the value it
    has, SQLite rewrites its index entries and checks its foreign key. Every
    later row was written from ``start``'s summary, by this function.
    """
    summary = _summary(state, now)
    if start.version == 0:
        return summary
    before = _summary(start, now)
    return {column: value for column, value in summary.items() if column not in before or before[column] != value}


def _summary(state: TableState, now: datetime) -> dict[str, Any]:
    """The table row's columns that follow from the state."""
    seats = state.seats
    match = state.match
    summary: dict[str, Any] = {
        "status": state.status,
        "deadline_at": state.deadline,
        "player0_id": seats[0].user_id if seats[0] is not None else None,
        "player1_id": seats[1].user_id if seats[1] is not None else None,
    }
    if match is not None:
        summary["score"] = {"score": list(match.score), "games": len(match.results)}
        summary["winner"] = match.winner
        if state.status == "finished":
            summary["finished_at"] = now
    return summary


def _bot_action(bot: Bot, state: TableState, seat: int) -> dict[str, Any]:
    """What the bot in ``seat`` does now, as a protocol action."""
    game = state.game
    assert game is not None
    if game.phase is Phase.ROLLING:
        if game.can_double(seat) and bot.wants_to_double(game, seat):
            return {"t": "double"}
        return {"t": "roll"}
    if game.phase is Phase.DOUBLED:
        return {"t": "take" if bot.accepts_double(game, seat) else "drop"}
    if game.phase is Phase.RESIGNATION:
        return {"t": "accept_resignation"}
    assert game.dice is not None
    play = bot.choose_play(game.position, game.dice, game)
    assert play is not None
    return {"t": "move", "steps": [step_dict(s) for s in play.steps]}
