"""Whole random matches, played through ``nardy.rules`` and written as a table's record would hold them.

Imported as ``from tests.match_records import random_record``. Each match is drawn from
``random.Random(seed)``: random legal plays, doubles offered now and then
(taken, beavered or dropped), resignations offered and answered, a timeout
now and then (the "server" then plays a random move, as the real one does).
The record has the fields and event kinds of ``GET /api/tables/{id}/record``
(docs/protocol.md), without the seats' ids, seeds and times, which a
transcript does not read.
"""

from __future__ import annotations

import random
from typing import Any

from nardy.rules import GameOptions, Match, Phase, WinKind

Json = dict[str, Any]


def random_record(
    variant: str, seed: int, *, length: int = 3, options: GameOptions | None = None, money_games: int = 3,
    max_actions: int = 20_000,
) -> tuple[Json, Match]:
    """A finished random match as a record, and the match as the rules left it (``length`` 0: a money
    session of ``money_games`` games)."""
    rng = random.Random(seed)
    chosen = options if options is not None else GameOptions(cube=variant in ("backgammon", "dave"))
    match = Match.new(variant, length=length, options=chosen)
    events: list[Json] = [
        {"kind": "seated", "seat": 0, "payload": {"seat": 0, "name": "ann", "bot": None}},
        {"kind": "seated", "seat": 1, "payload": {"seat": 1, "name": "bob", "bot": None}},
        {"kind": "match_started", "seat": None, "payload": {}},
    ]

    def add(kind: str, seat: int | None, payload: Json | None = None) -> None:
        events.append({"kind": kind, "seat": seat, "payload": payload or {}})

    for _ in range(max_actions):
        if match.is_over or (length == 0 and len(match.results) >= money_games):
            break
        game = match.game
        before = len(match.results)
        if game.phase is Phase.OPENING:
            first = rng.randint(1, 6)
            second = rng.choice([d for d in range(1, 7) if d != first])
            add("opening_rolled", None, {"dice": [first, second]})
            match = match.update(game.opening_roll((first, second)))
        elif game.phase is Phase.ROLLING:
            turn = game.turn
            if rng.random() < 0.01:
                add("timed_out", turn)
                match = match.timeout(turn)
                if match.is_over:
                    break
            if game.can_double(turn) and rng.random() < 0.08:
                add("doubled", turn)
                match = match.update(game.double(turn))
            elif rng.random() < 0.01:
                kind = rng.choice(game.variant.kinds) if game.variant.resignation_offers else None
                add("resigned", turn, {"kind": kind.value if isinstance(kind, WinKind) else None})
                match = match.update(game.resign(turn, kind))
            else:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                add("rolled", turn, {"dice": list(dice)})
                match = match.update(game.roll(turn, dice))
        elif game.phase is Phase.MOVING:
            assert game.dice is not None
            play = rng.choice(game.legal_plays())
            steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
            add("moved", game.turn, {"steps": steps})
            match = match.update(game.move(game.turn, play.steps))
        elif game.phase is Phase.DOUBLED:
            taker = game.opponent
            answer = rng.random()
            if answer < 0.2:
                add("dropped", taker)
                match = match.update(game.drop(taker))
            elif answer < 0.3 and game.options.beavers and game.cube.value * 4 <= 64:
                add("beavered", taker)
                match = match.update(game.beaver(taker))
            else:
                add("took", taker)
                match = match.update(game.take(taker))
        elif game.phase is Phase.RESIGNATION:
            assert game.pending_resignation is not None
            answerer = 1 - game.pending_resignation[0]
            if rng.random() < 0.6:
                add("resignation_accepted", answerer)
                match = match.update(game.accept_resignation(answerer))
            else:
                add("resignation_declined", answerer)
                match = match.update(game.decline_resignation(answerer))
        if len(match.results) > before:
            result = match.results[-1]
            add("game_ended", None, {"number": len(match.results), "result": {
                "winner": result.winner, "kind": result.kind.value, "points": result.points, "reason": result.reason,
            }})
    else:
        raise AssertionError(f"the match did not end in {max_actions} actions")
    add("match_ended", None, {"winner": match.winner, "score": list(match.score)})
    record = {
        "variant": variant, "match_length": length, "move_seconds": None,
        "options": {"cube": chosen.cube, "jacoby": chosen.jacoby, "automatic_doubles": chosen.automatic_doubles,
                    "backgammon_value": chosen.backgammon_value, "beavers": chosen.beavers},
        "events": events,
    }
    return record, match
