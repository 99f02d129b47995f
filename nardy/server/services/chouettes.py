"""Chouette tables: what a chouette is (:class:`ChouetteKind`), and the service that opens and serves them.

A chouette is served by its owner (:mod:`~nardy.server.services.table_owner`)
as a two-seat table is: :func:`~nardy.server.services.chouette_state.decide`
asks the rules, the server's follow-ups (seed commitments, formation and
opening rolls, game starts and ends with their seeds revealed) join the
batch, everything is committed in one transaction, and only then published
and the clock armed. ``team_say`` changes nothing: it is published to the
team alone (``docs/chouette.md``). As for a match, the process that
committed the last change serves the clock, until it stops answering and
another takes the table over (:meth:`ChouetteService.adopt`).

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

from sqlalchemy.orm import Session

from nardy.notation.fair_dice import commitment
from nardy.rules import GameOptions
from nardy.rules.chouette import ChouettePhase
from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services import moderation
from nardy.server.services.chouette_state import (
    CHOUETTE_KIND,
    ChouetteSpec,
    ChouetteTableState,
    apply_event,
    decide,
    forced_events,
    initial_state,
    opening_event,
    sit_events,
    team_message,
    view,
)
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.dice import DiceSource
from nardy.server.services.publisher import Publisher
from nardy.server.services.table_owner import (
    FINISHED_SECONDS,
    IDLE_SECONDS,
    Commit,
    LiveTableReads,
    LiveTables,
    TableOwner,
)
from nardy.server.services.table_state import ActionError, NewEvent, Roller
from nardy.store import tables_repo
from nardy.store.models import ChouettePlayer, GameSeed, GameTable, User
from nardy.store.tables_repo import StoredEvent

log = logging.getLogger(__name__)

LiveChouette = TableOwner[ChouetteTableState]
"""The owner of a chouette held in memory."""

CHOUETTE_ACTIONS = frozenset({
    "start", "vote", "box_answer", "roll", "step", "undo", "confirm", "move", "double", "take", "drop", "resign",
    "client_seed", "leave",
})
"""The protocol actions a chouette decides (``docs/chouette.md``); ``team_say`` is no event."""


def chouette_spec_from_row(row: GameTable) -> ChouetteSpec:
    """A chouette's spec from its database row."""
    return ChouetteSpec(
        options=GameOptions(**row.options), max_players=row.max_players or 8, move_seconds=row.move_seconds,
        private=row.private, variant=row.variant,
    )


class ChouetteKind:
    """What a chouette is, for its owner: its fold, decisions, follow-ups, write and view."""

    name = CHOUETTE_KIND
    actions = CHOUETTE_ACTIONS

    def __init__(self, *, db: DatabaseThreads, dice: DiceSource) -> None:
        self._db = db
        self._dice = dice
        self._random = random.SystemRandom()

    def initial(self, table_id: str, row: GameTable) -> ChouetteTableState:
        return initial_state(table_id, chouette_spec_from_row(row))

    def fold(self, state: ChouetteTableState, event: NewEvent, at: datetime) -> ChouetteTableState:
        return apply_event(state, event, at)

    def actor_key(self, state: ChouetteTableState, user_id: int) -> str:
        return f"u{user_id}"

    def decide(
        self, state: ChouetteTableState, user_id: int, action: dict[str, Any], roller: Roller,
    ) -> list[NewEvent]:
        return decide(state, user_id, action, roller)

    def timed_out(self, state: ChouetteTableState, roller: Roller, now: datetime) -> list[NewEvent]:
        """The server decides what the table waits for (``docs/chouette.md``), while a game is played."""
        if state.game is None:
            return []
        return forced_events(state, self._random, roller, now)

    def roll(self, state: ChouetteTableState, seeds: dict[int, str], number: int) -> tuple[int, int]:
        return self._dice.roll(seeds[state.number], state.round_client_seeds, number)

    def render(self, state: ChouetteTableState, now: datetime) -> dict[str, Any]:
        return view(state, now=now)

    def finished(self, state: ChouetteTableState) -> bool:
        return state.status == "closed"

    async def store(self, commit: Commit[ChouetteTableState]) -> None:
        """The events, the seeds dealt and the newcomers' player rows, in one transaction."""
        start, state = commit.start, commit.state
        newcomers = [ChouettePlayer(table_id=state.id, user_id=user) for user in state.names if user not in start.names]
        summary = _summary(state, commit.at)
        await self._db.run(lambda db: tables_repo.append(
            db, table_id=state.id, expected_version=start.version, events=commit.events, owner=commit.owner,
            summary=summary, seeds=commit.seeds, extra_rows=newcomers,
        ))

    def follow_up(self, state: ChouetteTableState, seeds: dict[int, str], new_seeds: list[GameSeed]) -> NewEvent | None:
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
            return opening_event(state.game, dice, state.roll_number)
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




class ChouetteService(LiveTableReads[ChouetteTableState]):
    """Opens chouettes, seats players and hands every action to the table's owner."""

    kind = CHOUETTE_KIND

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        publisher: Publisher,
        dice: DiceSource,
        clock: Clock,
        process_id: str,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
        metrics: Metrics = SILENT,
    ) -> None:
        self._db = db
        self._clock = clock
        self._publisher = publisher
        self.process_id = process_id
        self.live = LiveTables(
            kind=ChouetteKind(db=db, dice=dice), db=db, publisher=publisher, clock=clock, process_id=process_id,
            idle_seconds=idle_seconds, finished_seconds=finished_seconds, metrics=metrics,
        )

    # ----- lifecycle

    async def start(self) -> None:
        """Start the clocks and the dropping of idle tables (clocks nobody serves come through :meth:`adopt`)."""
        self.live.start()

    async def stop(self) -> None:
        """Stop the clocks and the sweeping of idle tables."""
        await self.live.stop()

    # ----- reading

    async def chat_history(self, table_id: str, user_id: int | None) -> list[dict[str, Any]]:
        """Nothing: a chouette has no chat (its team channel keeps nothing)."""
        return []

    # ----- creating and joining

    async def create(
        self, *, user: User, spec: ChouetteSpec, client_seed: str | None = None, waiting_cap: int | None = None,
    ) -> ChouetteTableState:
        """A new chouette with ``user`` seated; it forms when a player sends ``start``. With ``waiting_cap`` it
        is refused (``too_many_tables``) to a player who would then hold more tables waiting for players."""
        table_id = secrets.token_urlsafe(12)
        state = initial_state(table_id, spec)
        row = GameTable(
            id=table_id, kind=CHOUETTE_KIND, max_players=spec.max_players, variant=spec.variant, match_length=0,
            options=spec.options_dict(), move_seconds=spec.move_seconds, rated=False, private=spec.private,
            invite_token=secrets.token_urlsafe(16) if spec.private else None, created_by=user.id,
            created_at=self._clock.now(), status="waiting", version=0, owner=self.process_id,
        )
        await self._db.run(
            lambda session: LiveTables.store_new_table(session, row, user_id=user.id, waiting_cap=waiting_cap),
        )
        events = sit_events(state, user.id, user.username, client_seed or secrets.token_hex(16))

        async def seat(owner: LiveChouette) -> ChouetteTableState:
            await owner.commit(events, None)
            return owner.state

        return await self.live.open(state).ask(seat, fresh=False)

    async def join(self, table_id: str, *, user: User, client_seed: str | None = None) -> ChouetteTableState:
        """Seat ``user``: before forming, to roll for a place; later at the end of the team (from the next game).

        Already seated: nothing changes. ``table_full`` or ``not_open`` (while rolling for places) otherwise.
        """

        async def sit(owner: LiveChouette) -> ChouetteTableState:
            events = sit_events(owner.state, user.id, user.username, client_seed or secrets.token_hex(16))
            if events:
                await owner.commit(events, None)
            return owner.state

        return await self.live.send(table_id, sit)

    # ----- actions

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Apply a player's action, or send their team message (``team_say``); the table's version after it.
        Raises ActionError."""
        if action["t"] == "team_say":
            return await self.team_say(table_id, user_id=user_id, action=action)
        return await self.live.act(table_id, user_id=user_id, action=action, action_id=action_id)

    async def team_say(self, table_id: str, *, user_id: int, action: dict[str, Any]) -> int:
        """Send a team member's message to the team as it is now (never stored); returns the table's version.

        Refused ``muted`` while a moderator has muted the player's chat. A member who blocks the writer or is
        blocked by them is left out: as at a two-seat table, no message passes between the two
        (``docs/moderation.md``)."""
        state = await self.current(table_id)
        team, said = team_message(state, user_id, action)
        now = self._clock.now()

        def check(db: Session) -> tuple[tuple[str, str] | None, set[int]]:
            return moderation.chat_refusal(db, user_id, None, now), moderation.kept_apart_from(db, user_id)

        refusal, apart = await self._db.run(check)
        if refusal is not None:
            raise ActionError(*refusal)
        await self._publisher.team_said(said, frozenset(team) - apart)
        return state.version

    async def on_deadline(self, table_id: str, deadline: datetime) -> None:
        """The clock ran out on the decision the table waits for: the server decides it (``docs/chouette.md``)."""
        await self.live.on_deadline(table_id, deadline)


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
