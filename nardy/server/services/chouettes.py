"""The chouette service: every action on a chouette table goes through here, one at a time per table.

The same discipline as :mod:`~nardy.server.services.tables`: refresh from the
database if another process moved the table on, let
:func:`~nardy.server.services.chouette_state.decide` ask the rules, add the
server's follow-ups (seed commitments, formation and opening rolls, game
starts and ends with their seeds revealed), commit everything in one
transaction, and only then publish and arm the clock. ``team_say`` changes
nothing: it is published to the team alone (``docs/chouette.md``). As for a
match, the process that committed the last change serves the clock, until
it stops answering and another takes the table over (:meth:`adopt`).

Dice (``docs/chouette.md``, *Dice*): every formation and every game has a
number and a seed, committed before its client seeds are fixed (number 0,
the first formation, when the table opens; number N+1 when number N starts).
A formation's rolls use the client seeds of the first two players seated; a
game's those of the box and the captain. A formation round takes one die per
player, in the order of ``to_roll``, from successive rolls (both dice of each
roll, the second die of an odd last roll unused).
"""

from __future__ import annotations

import logging
import random
import secrets
from datetime import datetime
from typing import Any

from nardy.rules import GameOptions
from nardy.rules.chouette import ChouettePhase
from nardy.server.pubsub import PubSub
from nardy.server.services.chouette_state import (
    CHOUETTE_KIND,
    ChouetteSpec,
    ChouetteTableState,
    apply_event,
    decide,
    forced_events,
    initial_state,
    sit_events,
    team_message,
    view,
)
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.dice import DiceSource, commitment
from nardy.server.services.eventlog import (
    FINISHED_SECONDS,
    IDLE_SECONDS,
    EventLogService,
    LiveLog,
    act_with_retries,
    addressed,
    fold_batch,
    refresh,
    table_channel,
)
from nardy.server.services.table_state import NewEvent, Roller
from nardy.server.services.timers import DeadlineTimers
from nardy.store import tables_repo
from nardy.store.models import ChouettePlayer, GameSeed, GameTable, User
from nardy.store.tables_repo import VersionConflict

log = logging.getLogger(__name__)

LiveChouette = LiveLog[ChouetteTableState]


def chouette_spec_from_row(row: GameTable) -> ChouetteSpec:
    """A chouette's spec from its database row."""
    return ChouetteSpec(
        options=GameOptions(**row.options), max_players=row.max_players or 8, move_seconds=row.move_seconds,
        private=row.private,
    )


class ChouetteService(EventLogService[ChouetteTableState]):
    """Creates chouettes, seats players and applies actions, committing before publishing."""

    kind = CHOUETTE_KIND

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        pubsub: PubSub,
        dice: DiceSource,
        clock: Clock,
        process_id: str,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
    ) -> None:
        super().__init__(
            db=db, pubsub=pubsub, clock=clock, process_id=process_id, idle_seconds=idle_seconds,
            finished_seconds=finished_seconds,
        )
        self._dice = dice
        self._random = random.SystemRandom()
        self.timers = DeadlineTimers(clock, self.on_deadline)

    # ----- lifecycle

    async def start(self) -> None:
        """Start the clocks and the dropping of idle tables (clocks nobody serves come through :meth:`adopt`)."""
        self.timers.start()
        self._start_sweeping()

    async def stop(self) -> None:
        """Stop the clocks and the sweeping of idle tables."""
        await self.timers.stop()
        await self._stop_sweeping()

    # ----- creating and joining

    async def create(
        self, *, user: User, spec: ChouetteSpec, client_seed: str | None = None, waiting_cap: int | None = None,
    ) -> ChouetteTableState:
        """A new chouette with ``user`` seated; it forms when a player sends ``start``. With ``waiting_cap`` it
        is refused (``too_many_tables``) to a player who would then hold more tables waiting for players."""
        table_id = secrets.token_urlsafe(12)
        state = initial_state(table_id, spec)
        row = GameTable(
            id=table_id, kind=CHOUETTE_KIND, max_players=spec.max_players, variant="backgammon", match_length=0,
            options=spec.options_dict(), move_seconds=spec.move_seconds, rated=False, private=spec.private,
            invite_token=secrets.token_urlsafe(16) if spec.private else None, created_by=user.id,
            created_at=self._clock.now(), status="waiting", version=0, owner=self.process_id,
        )
        await self._db.run(
            lambda session: self._store_new_table(session, row, user_id=user.id, waiting_cap=waiting_cap),
        )
        live = self._new_live(state)
        async with live.lock:
            events = sit_events(state, user.id, user.username, client_seed or secrets.token_hex(16))
            await self._commit(live, events, action_id=None)
        return live.state

    async def join(self, table_id: str, *, user: User, client_seed: str | None = None) -> ChouetteTableState:
        """Seat ``user``: before forming, to roll for a place; later at the end of the team (from the next game).

        Already seated: nothing changes. ``table_full`` or ``not_open`` (while rolling for places) otherwise.
        """
        async with self._hold(table_id) as live, live.lock:
            await refresh(self._db, live)
            events = sit_events(live.state, user.id, user.username, client_seed or secrets.token_hex(16))
            if events:
                await self._commit(live, events, action_id=None)
            return live.state

    # ----- actions

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Apply a player's action; returns the table version after it. Raises ActionError."""

        async def commit(live: LiveChouette, events: list[NewEvent], action_id: str) -> None:
            await self._commit(live, events, action_id=action_id)

        async with self._hold(table_id) as live:
            return await act_with_retries(
                self._db, live, lambda _: f"u{user_id}:{action_id}",
                lambda state: decide(state, user_id, action, self._roller(live)), commit,
            )

    async def team_say(self, table_id: str, *, user_id: int, action: dict[str, Any]) -> int:
        """Send a team member's message to the team as it is now (never stored); returns the table's version."""
        state = await self.current(table_id)
        audience, message = team_message(state, user_id, action)
        await self._pubsub.publish(table_channel(table_id), addressed(audience, message))
        return state.version

    async def on_deadline(self, table_id: str, deadline: datetime) -> None:
        """The clock ran out on the decision the table waits for: the server decides it (``docs/chouette.md``)."""
        async with self._hold(table_id) as live, live.lock:
            await refresh(self._db, live)
            state = live.state
            now = self._clock.now()
            if state.game is None or state.deadline != deadline or now < deadline:
                return
            events = forced_events(state, self._random, self._roller(live), now)
            try:
                await self._commit(live, events, action_id=None)
            except VersionConflict:
                log.info("chouette %s moved on before its timeout was recorded", table_id)

    # ----- internals

    def _initial(self, table_id: str, row: GameTable) -> ChouetteTableState:
        return initial_state(table_id, chouette_spec_from_row(row))

    def _fold_event(self, state: ChouetteTableState, event: NewEvent, at: datetime) -> ChouetteTableState:
        return apply_event(state, event, at)

    def _render(self, state: ChouetteTableState, now: datetime) -> dict[str, Any]:
        return view(state, now=now)

    def _is_finished(self, state: ChouetteTableState) -> bool:
        return state.status == "closed"

    def _after_commit(self, live: LiveChouette) -> None:
        self.timers.arm(live.state.id, live.state.deadline)

    def _roller(self, live: LiveChouette) -> Roller:
        state = live.state

        def roll(number: int) -> tuple[int, int]:
            return self._dice.roll(live.seeds[state.number], state.round_client_seeds, number)

        return roll

    async def _commit(self, live: LiveChouette, events: list[NewEvent], *, action_id: str | None) -> None:
        """Fold, add follow-ups, store everything in one transaction, then publish and arm the clock."""
        now = self._clock.now()
        start = live.state
        seeds = dict(live.seeds)
        new_seeds: list[GameSeed] = []
        state, stored = fold_batch(
            start, events, now, apply_event, lambda s: self._follow_up(s, seeds, new_seeds), action_id,
        )
        newcomers = [ChouettePlayer(table_id=state.id, user_id=user) for user in state.names if user not in start.names]
        await self._db.run(lambda db: tables_repo.append(
            db, table_id=state.id, expected_version=start.version, events=stored, owner=self.process_id,
            summary=_summary(state, now), seeds=new_seeds, extra_rows=newcomers,
        ))
        live.state = state
        live.seeds = seeds
        if action_id is not None:
            live.acted[action_id] = state.version
        await self._publish(live, stored)
        self._after_commit(live)

    def _follow_up(self, state: ChouetteTableState, seeds: dict[int, str], new_seeds: list[GameSeed]) -> NewEvent | None:
        """The next event the server adds by itself, if any (see the module docstring for the dice)."""
        chouette = state.chouette
        if len(chouette.results) > state.results_announced:
            return self._game_end(state, seeds)
        if state.formation_open and chouette.lineup is not None:
            lineup = chouette.lineup
            return NewEvent("formed", None, {
                **self._reveal(state.number, seeds), "client_seeds": list(state.round_client_seeds),
                "box": lineup.box, "team": list(lineup.team),
            })
        upcoming = state.number + 1
        if state.next_commitment is None or state.next_commitment[0] < upcoming:
            seed = self._dice.new_seed()
            seeds[upcoming] = seed
            new_seeds.append(GameSeed(table_id=state.id, number=upcoming, seed=seed, commitment=commitment(seed)))
            return NewEvent("seed_committed", None, {"number": upcoming, "commitment": commitment(seed)})
        formation = chouette.formation
        if state.formation_open and formation is not None and not formation.done:
            return self._formation_round(state, seeds)
        game = chouette.game
        if game is not None and not state.game_open:
            lineup = game.lineup
            return NewEvent("game_started", None, {
                "number": upcoming, "commitment": state.next_commitment[1],
                "client_seeds": [state.client_seeds[lineup.box], state.client_seeds[lineup.captain]],
                "box": lineup.box, "team": list(lineup.team),
            })
        if state.game is not None and state.game.phase is ChouettePhase.OPENING:
            dice = self._dice.roll(seeds[state.number], state.round_client_seeds, state.roll_number)
            return NewEvent("opening_rolled", None, {"dice": list(dice), "number": state.roll_number})
        return None

    def _formation_round(self, state: ChouetteTableState, seeds: dict[int, str]) -> NewEvent:
        formation = state.chouette.formation
        assert formation is not None
        rollers = formation.to_roll
        rolls = [
            self._dice.roll(seeds[state.number], state.round_client_seeds, state.roll_number + i)
            for i in range((len(rollers) + 1) // 2)
        ]
        dice = [die for roll in rolls for die in roll]
        return NewEvent("formation_rolled", None, {
            "number": state.roll_number, "rolls": [list(roll) for roll in rolls],
            "dice": [[player, dice[i]] for i, player in enumerate(rollers)],
        })

    def _game_end(self, state: ChouetteTableState, seeds: dict[int, str]) -> NewEvent:
        index = state.results_announced
        number = state.result_numbers[index]
        result = state.chouette.results[index]
        return NewEvent("game_ended", None, {
            **self._reveal(number, seeds),
            "result": {
                "box": result.box, "captain": result.captain, "team_won": result.team_won,
                "kind": result.kind.value if result.kind is not None else None,
                "points": [[player, points] for player, points in result.points],
            },
            "client_seeds": list(state.round_client_seeds),
        })

    @staticmethod
    def _reveal(number: int, seeds: dict[int, str]) -> dict[str, Any]:
        seed = seeds.get(number)
        return {"number": number, "seed": seed, "commitment": commitment(seed) if seed is not None else None}



def _summary(state: ChouetteTableState, now: datetime) -> dict[str, Any]:
    """The table row's columns that follow from the state at ``now``: the lobby lists the players from ``score``,
    and a chouette is finished when its last player leaves (the players' game histories date it then)."""
    chouette = state.chouette
    status = state.status
    return {
        "status": status,
        "finished_at": now if status == "closed" else None,
        "deadline_at": state.deadline,
        "score": {
            "players": [{"user_id": p, "name": state.names.get(p, "")} for p in chouette.players],
            "games": len(chouette.results),
            "scores": [[p, score] for p, score in chouette.scores],
        },
    }
