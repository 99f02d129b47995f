"""A chouette's opening roll names who plays first, and its replay shows a pass, as a two-player table's do
(``docs/chouette.md``, *Events* and *Replay*).

The chouette is played through :mod:`nardy.server.services.chouette_state` alone, its events appended by
hand as the service would; the scenario is ``test_passes``': the captain opens 6-1 leaving a blot, the box
hits it with 6-1 closing its 7 point, and the captain's 6-6 cannot enter.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from nardy.rules import GameOptions
from nardy.server.services.chouette_state import (
    ChouetteSpec,
    ChouetteTableState,
    apply_event,
    decide,
    initial_state,
    opening_event,
    sit_events,
)
from nardy.server.services.records import chouette_replay
from nardy.server.services.table_state import NewEvent
from nardy.store.tables_repo import StoredEvent

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HASH = "ab" * 32
BOX, CAPTAIN, MEMBER = 1, 2, 3


class Log:
    """A chouette's log as it grows, and its state folded from it."""

    def __init__(self) -> None:
        self.state: ChouetteTableState = initial_state("c1", ChouetteSpec(GameOptions(cube=True)))
        self.events: list[NewEvent] = []

    def add(self, *events: NewEvent) -> None:
        for event in events:
            self.state = apply_event(self.state, event, NOW)
            self.events.append(event)

    def act(self, user: int, t: str, *rolls: tuple[int, int], **fields: Any) -> list[NewEvent]:
        queue = list(rolls)
        events = decide(self.state, user, {"t": t, **fields}, lambda _number: queue.pop(0))
        self.add(*events)
        return events

    def stored(self) -> list[StoredEvent]:
        return [StoredEvent(v, e.kind, e.seat, e.payload, NOW, None) for v, e in enumerate(self.events, start=1)]


def formed() -> Log:
    """Three seated and formed (the box, the captain, a member), game 1 started, its opening not rolled yet."""
    log = Log()
    for player in (BOX, CAPTAIN, MEMBER):
        log.add(*sit_events(log.state, player, f"p{player}", f"seed{player}"))
        if log.state.next_commitment is None:
            log.add(NewEvent("seed_committed", None, {"number": 0, "commitment": HASH}))
    log.act(BOX, "start")
    log.add(
        NewEvent("seed_committed", None, {"number": 1, "commitment": HASH}),
        NewEvent("formation_rolled", None, {"number": 0, "rolls": [[6, 5], [4, 1]],
                                            "dice": [[BOX, 6], [CAPTAIN, 5], [MEMBER, 4]]}),
    )
    lineup = log.state.chouette.lineup
    assert lineup is not None and (lineup.box, lineup.captain) == (BOX, CAPTAIN)
    log.add(
        NewEvent("formed", None, {"number": 0, "seed": None, "commitment": HASH, "client_seeds": [],
                                  "box": BOX, "team": list(lineup.team)}),
        NewEvent("game_started", None, {"number": 1, "commitment": HASH, "client_seeds": ["a", "b"],
                                        "box": BOX, "team": list(lineup.team)}),
        NewEvent("seed_committed", None, {"number": 2, "commitment": HASH}),
    )
    return log


def test_the_opening_roll_names_who_plays_first() -> None:
    """000: «Игрок с большим значением ходит первым. При равенстве кубики перебрасываются»: ``first`` is the
    user id of the box or the captain, whoever rolled higher, and ``null`` on a tie."""
    log = formed()
    game = log.state.game
    assert game is not None
    assert opening_event(game, (6, 1), 0).payload == {"dice": [6, 1], "number": 0, "first": BOX}
    assert opening_event(game, (1, 6), 0).payload["first"] == CAPTAIN
    assert opening_event(game, (3, 3), 0).payload["first"] is None


def test_the_replay_shows_the_pass() -> None:
    """003: «Такой ход обозначен как "pass" в записи игры»: the replay has a ``passed`` frame after the roll."""
    log = formed()
    game = log.state.game
    assert game is not None
    log.add(opening_event(game, (1, 6), 0))
    log.act(CAPTAIN, "move", steps=[{"source": 24, "target": 18, "die": 6}, {"source": 6, "target": 5, "die": 1}])
    log.act(BOX, "roll", (6, 1))
    log.act(BOX, "move", steps=[{"source": 13, "target": 7, "die": 6}, {"source": 8, "target": 7, "die": 1}])
    passed = log.act(CAPTAIN, "roll", (6, 6))
    assert [e.kind for e in passed] == ["rolled", "passed"]
    log.act(BOX, "resign")

    games = chouette_replay("c1", log.state.spec, log.stored())
    assert len(games) == 1
    frames = games[0]["frames"]
    kinds = [frame["kind"] for frame in frames]
    assert kinds == ["game_started", "opening_rolled", "moved", "rolled", "moved", "rolled", "passed", "resigned"]
    passing = frames[kinds.index("passed")]
    assert (passing["player"], passing["dice"], passing["turn"]) == (CAPTAIN, [6, 6], "box")
