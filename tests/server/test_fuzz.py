"""Hypothesis throws malformed, oversized, misaddressed and illegal WebSocket messages at a live table.

The app runs in-process (``TestClient``) with scripted dice, a georgian
match under way and the first player to move. Three connections are open:
the player on turn, the other player, and an anonymous visitor. Every
generated message must be answered by exactly one ``{"t": "error"}`` with the
expected code; afterwards the connection still answers a ``ping`` with a
``pong``, and the table (``GET /api/tables/{id}``) is exactly as before. The
two players' connections are subscribed to the table, so an event that
should not have happened would arrive in place of the expected error.

The fuzzing app lifts the rate limit (the limit itself is tested on its own,
with the default burst).
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from nardy.notation import position_from_dict
from nardy.server.app import create_app
from nardy.server.services.dice import ScriptedDice
from nardy.server.settings import Settings
from nardy.server.ws.protocol import ProtocolError, Roll, parse_message
from tests.server.live_server import inprocess_post, inprocess_signup, inprocess_ws

Json = dict[str, Any]
Message = Json | str | bytes

FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)

ACTIONS = (
    "roll", "step", "undo", "confirm", "move", "double", "take", "drop", "beaver", "resign",
    "accept_resignation", "decline_resignation", "rematch", "leave",
)
KNOWN = ("subscribe", "unsubscribe", "ping", *ACTIONS)
ID_ALPHABET = string.ascii_letters + string.digits + "_-"


@dataclass
class Arena:
    """The app, its table and the three open connections."""

    client: TestClient
    table: str
    players: tuple[WebSocketTestSession, WebSocketTestSession]
    anonymous: WebSocketTestSession
    actor: int
    legal_steps: frozenset[tuple[int, int]]
    legal_moves: frozenset[tuple[tuple[int, int, int], ...]]
    before: Json
    limit: int

    def view(self) -> Json:
        reply = self.client.get(f"/api/tables/{self.table}")
        assert reply.status_code == 200
        data: Json = reply.json()
        data.pop("server_time")
        return data

    def refused(self, ws: WebSocketTestSession, message: Message, codes: set[str]) -> Json:
        """Send ``message``; exactly one error with one of ``codes`` comes back and nothing changes."""
        if isinstance(message, dict):
            ws.send_text(json.dumps(message))
        elif isinstance(message, str):
            ws.send_text(message)
        else:
            ws.send_bytes(message)
        reply: Json = ws.receive_json()
        assert reply.get("t") == "error", f"{_short(message)} was answered with {_short(reply)}"
        assert reply["code"] in codes, f"{_short(message)}: code {reply['code']!r}, expected one of {codes}"
        assert isinstance(reply.get("message"), str) and reply["message"]
        if isinstance(message, dict):
            assert reply.get("action_id", message.get("action_id")) == message.get("action_id")
        ws.send_text('{"t": "ping"}')
        pong = ws.receive_json()
        assert pong == {"t": "pong"}, f"after {_short(message)}, a ping got {_short(pong)}"
        assert self.view() == self.before, f"{_short(message)} changed the table"
        return reply


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) < 300 else text[:300] + "…"


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz")
    config = Settings(environment="testing", data_dir=data_dir, messages_per_second=1e6, message_burst=10**6)
    app = create_app(config, dice=ScriptedDice([(3, 1)]))
    with TestClient(app) as client, ExitStack() as stack:
        alice, bob = inprocess_signup(client, "alice"), inprocess_signup(client, "bob")
        table = inprocess_post(client, alice, "/api/tables", {"variant": "georgian", "match_length": 1})["table"]["table"]
        state = inprocess_post(client, bob, f"/api/tables/{table}/join", {})
        players = (inprocess_ws(stack, client, alice), inprocess_ws(stack, client, bob))
        for ws in players:
            ws.send_text(json.dumps({"t": "subscribe", "table": table}))
            assert ws.receive_json()["t"] == "sync"
        game = state["game"]
        assert state["status"] == "playing" and game["phase"] == "moving" and not game["pending"]
        actor = state["actor"]
        position = position_from_dict(game["boards"][actor])
        moves = frozenset(
            tuple((s.source, s.target, s.die) for s in sequence) for sequence in position.legal_sequences(game["dice"])
        )
        steps = frozenset((s["source"], s["die"]) for s in game["legal"]["steps"])
        arena = Arena(client, table, players, inprocess_ws(stack, client, None), actor, steps, moves, {}, config.max_message_bytes)
        arena.before = arena.view()
        yield arena


# ----- strategies

ACTION_ID_MAX = Roll.model_json_schema()["properties"]["action_id"]["maxLength"]
action_ids = st.from_regex(rf"[A-Za-z0-9_.:-]{{1,{ACTION_ID_MAX}}}", fullmatch=True)
table_ids = st.text(ID_ALPHABET, min_size=1, max_size=32)
points = st.integers(1, 25)
dice = st.integers(1, 6)
step_specs = st.fixed_dictionaries(
    {"source": points, "target": st.integers(0, 24), "die": dice}, optional={"hit": st.booleans()}
)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)


def _action(t: str, table: str, action_id: str, draw: st.DrawFn) -> Json:
    message: Json = {"t": t, "table": table, "action_id": action_id}
    if t == "step":
        message.update(source=draw(points), die=draw(dice))
    elif t == "move":
        message["steps"] = draw(st.lists(step_specs, min_size=1, max_size=4))
    elif t == "resign":
        kind = draw(st.sampled_from([None, "single", "gammon", "backgammon"]))
        if kind is not None:
            message["kind"] = kind
    return message


@st.composite
def well_formed_actions(draw: st.DrawFn, table: str, kinds: tuple[str, ...] = ACTIONS) -> Json:
    return _action(draw(st.sampled_from(kinds)), table, draw(action_ids), draw)


def _parses(message: Message) -> bool:
    text = message if isinstance(message, (str, bytes)) else json.dumps(message)
    try:
        parse_message(text)
    except ProtocolError:
        return False
    return True


# ----- the properties


@FUZZ
@given(data=st.data())
def test_malformed_json_and_binary_frames(arena: Arena, data: st.DataObject) -> None:
    message = data.draw(st.one_of(
        st.text(max_size=200),
        st.binary(max_size=300),
        json_values.map(json.dumps),
        st.sampled_from(["", "{", "}", "null", "[]", "42", '"ping"', '{"t": "ping"', "{'t': 'ping'}", "\x00", "\ufeff{}"]),
    ))
    assume(not _parses(message))
    ws = data.draw(st.sampled_from([*arena.players, arena.anonymous]))
    arena.refused(ws, message, {"bad_message"})


@FUZZ
@given(data=st.data())
def test_unknown_types_and_unknown_fields(arena: Arena, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["unknown_t", "missing_t", "unknown_field"]))
    if kind == "unknown_t":
        message: Json = {"t": data.draw(st.text(max_size=20).filter(lambda t: t not in KNOWN)), "table": arena.table}
    elif kind == "missing_t":
        message = data.draw(well_formed_actions(arena.table))
        del message["t"]
    else:
        message = data.draw(st.one_of(
            well_formed_actions(arena.table),
            st.just({"t": "ping"}),
            st.just({"t": "subscribe", "table": arena.table}),
        ))
        allowed = set(message) | {"since", "source", "die", "steps", "kind"}
        extra = data.draw(st.text(min_size=1, max_size=12).filter(lambda key: key not in allowed))
        message[extra] = data.draw(json_values)
    ws = data.draw(st.sampled_from([*arena.players, arena.anonymous]))
    arena.refused(ws, message, {"bad_message"})


WRONG_TYPES: dict[str, st.SearchStrategy[Any]] = {
    "table": st.one_of(st.just(""), st.text(ID_ALPHABET, min_size=33, max_size=40), st.text(min_size=1, max_size=10).filter(lambda s: any(c not in ID_ALPHABET for c in s)), st.integers(), st.none(), st.lists(st.integers(), max_size=2)),
    "action_id": st.one_of(st.just(""), st.text("ab", min_size=ACTION_ID_MAX + 1, max_size=ACTION_ID_MAX + 6), st.sampled_from(["a b", "é", "a/b", "{}"]), st.integers(), st.none(), st.booleans()),
    "source": st.one_of(st.integers(max_value=0), st.integers(min_value=26), st.floats(), st.booleans(), st.text(string.digits, min_size=1, max_size=2), st.none()),
    "die": st.one_of(st.integers(max_value=0), st.integers(min_value=7), st.floats(), st.booleans(), st.text(string.digits, min_size=1, max_size=1)),
    "steps": st.one_of(st.just([]), st.lists(step_specs, min_size=5, max_size=6), st.text(max_size=5), st.lists(st.integers(), min_size=1, max_size=2), st.lists(step_specs.map(lambda s: {**s, "die": 9}), min_size=1, max_size=2)),
    "kind": st.one_of(st.text(max_size=8).filter(lambda k: k not in ("single", "gammon", "backgammon")), st.integers()),
    "since": st.one_of(st.integers(max_value=-1), st.floats(), st.text(string.digits, min_size=1, max_size=3), st.booleans()),
}


@FUZZ
@given(data=st.data())
def test_wrong_types_and_out_of_range_values(arena: Arena, data: st.DataObject) -> None:
    message = data.draw(st.one_of(
        well_formed_actions(arena.table),
        st.just({"t": "subscribe", "table": arena.table, "since": 0}),
        st.just({"t": "unsubscribe", "table": arena.table}),
    ))
    field = data.draw(st.sampled_from([k for k in message if k in WRONG_TYPES] + (["kind"] if message["t"] == "resign" else [])))
    message[field] = data.draw(WRONG_TYPES[field])
    assume(not _parses(message))
    ws = data.draw(st.sampled_from([*arena.players, arena.anonymous]))
    arena.refused(ws, message, {"bad_message"})


@FUZZ
@given(data=st.data())
def test_messages_over_the_size_limit(arena: Arena, data: st.DataObject) -> None:
    size = data.draw(st.integers(arena.limit + 1, 4 * arena.limit))
    choices: list[Message] = [
        json.dumps({"t": "ping", "pad": "x" * size}),
        json.dumps({"t": "roll", "table": arena.table, "action_id": "a" * size}),
        "é" * (arena.limit // 2 + 1),  # fewer characters than the limit, more bytes
        b"\x00" * size,
        "x" * size,
    ]
    message = data.draw(st.sampled_from(choices))
    ws = data.draw(st.sampled_from([*arena.players, arena.anonymous]))
    arena.refused(ws, message, {"too_large"})


@FUZZ
@given(data=st.data())
def test_tables_that_do_not_exist(arena: Arena, data: st.DataObject) -> None:
    table = data.draw(table_ids.filter(lambda t: t != arena.table))
    message = data.draw(st.one_of(
        well_formed_actions(table),
        st.builds(lambda since: {"t": "subscribe", "table": table, **since},
                  st.one_of(st.just({}), st.integers(0, 10**6).map(lambda v: {"since": v}))),
    ))
    if message["t"] == "subscribe":
        ws = data.draw(st.sampled_from([*arena.players, arena.anonymous]))
        reply = arena.refused(ws, message, {"no_such_table"})
        assert reply["table"] == table
    else:
        arena.refused(data.draw(st.sampled_from(arena.players)), message, {"no_such_table"})


@FUZZ
@given(data=st.data())
def test_actions_without_signing_in(arena: Arena, data: st.DataObject) -> None:
    table = data.draw(st.one_of(st.just(arena.table), table_ids))
    reply = arena.refused(arena.anonymous, data.draw(well_formed_actions(table)), {"not_signed_in"})
    assert "table" not in reply


OUT_OF_TURN = ("roll", "step", "undo", "confirm", "move", "double", "take", "drop", "beaver")
NOT_NOW = ("rematch", "accept_resignation", "decline_resignation")


@FUZZ
@given(data=st.data())
def test_actions_out_of_turn(arena: Arena, data: st.DataObject) -> None:
    message = data.draw(well_formed_actions(arena.table, OUT_OF_TURN + NOT_NOW))
    reply = arena.refused(arena.players[1 - arena.actor], message, {"not_your_turn", "illegal"})
    assert reply["code"] == ("illegal" if message["t"] in NOT_NOW else "not_your_turn")
    assert reply["table"] == arena.table


@FUZZ
@given(data=st.data())
def test_illegal_actions_of_the_player_on_turn(arena: Arena, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["step", "move", "other"]))
    if kind == "step":
        message = data.draw(well_formed_actions(arena.table, ("step",)))
        assume((message["source"], message["die"]) not in arena.legal_steps)
    elif kind == "move":
        message = data.draw(well_formed_actions(arena.table, ("move",)))
        assume(tuple((s["source"], s["target"], s["die"]) for s in message["steps"]) not in arena.legal_moves)
    else:
        message = data.draw(well_formed_actions(
            arena.table, ("roll", "undo", "confirm", "double", "take", "drop", "beaver", *NOT_NOW)
        ))
    reply = arena.refused(arena.players[arena.actor], message, {"illegal"})
    assert reply["table"] == arena.table


def test_a_legal_step_with_an_unknown_field_is_refused_whole(arena: Arena) -> None:
    source, die = min(arena.legal_steps)
    message = {"t": "step", "table": arena.table, "action_id": "s1", "source": source, "die": die, "steps": []}
    reply = arena.refused(arena.players[arena.actor], message, {"bad_message"})
    assert "steps" in reply["message"]
    assert reply["action_id"] == "s1" and reply["table"] == arena.table  # so the client can settle its action


def test_a_refused_message_echoes_only_well_formed_ids(arena: Arena) -> None:
    ws = arena.players[arena.actor]
    reply = arena.refused(ws, {"t": "roll", "table": "no such/table", "action_id": "bad id!"}, {"bad_message"})
    assert "action_id" not in reply and "table" not in reply
    reply = arena.refused(ws, {"t": "fly", "table": arena.table, "action_id": 7}, {"bad_message"})
    assert reply["table"] == arena.table and "action_id" not in reply
    reply = arena.refused(ws, "[1, 2", {"bad_message"})
    assert "action_id" not in reply


def test_binary_frames_are_read_like_text(arena: Arena) -> None:
    """A binary frame holding a valid message is served like a text frame (documented in docs/protocol.md)."""
    ws = arena.anonymous
    ws.send_bytes(b'{"t": "ping"}')
    assert ws.receive_json() == {"t": "pong"}


def test_a_burst_beyond_the_limit_is_rate_limited(tmp_path: Path) -> None:
    config = Settings(environment="testing", data_dir=tmp_path, messages_per_second=0.01)
    burst = config.message_burst
    app = create_app(config, dice=ScriptedDice([(3, 1)]))
    with TestClient(app) as client, ExitStack() as stack:
        alice, bob = inprocess_signup(client, "alice"), inprocess_signup(client, "bob")
        table = inprocess_post(client, alice, "/api/tables", {"variant": "georgian", "match_length": 1})["table"]["table"]
        state = inprocess_post(client, bob, f"/api/tables/{table}/join", {})
        ws = inprocess_ws(stack, client, (alice, bob)[state["actor"]])
        for _ in range(burst + 10):
            ws.send_text('{"t": "ping"}')
        replies = [ws.receive_json() for _ in range(burst + 10)]
        assert replies[:burst] == [{"t": "pong"}] * burst
        limited = [r for r in replies[burst:] if r != {"t": "pong"}]
        assert len(limited) >= 8, "at most one token comes back in the time the burst takes"
        assert all(r == {"t": "error", "code": "rate_limited", "message": "too many messages: slow down"} for r in limited)

        # A legal move sent while limited is dropped, not applied.
        step = state["game"]["legal"]["steps"][0]
        ws.send_text(json.dumps({"t": "step", "table": table, "action_id": "while-limited",
                                 "source": step["source"], "die": step["die"]}))
        assert ws.receive_json() == {"t": "error", "code": "rate_limited", "message": "too many messages: slow down",
                                     "table": table, "action_id": "while-limited"}
        assert client.get(f"/api/tables/{table}").json()["version"] == state["version"]
        record = client.get(f"/api/tables/{table}/record").json()
        assert all(e["kind"] != "stepped" for e in record["events"])
