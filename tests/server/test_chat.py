"""The chat of two-seat tables (docs/protocol.md, *Chat*), through the real app in-process.

The two players write (free text or a quick phrase); everyone may read at an
unrated table; at a rated one the spectators read only while both players
allow it. A message is stored beside the event log: it changes no version,
survives a restart, and is in the table's record. Refused messages (too
long, blank, over the rate, from a spectator) are neither stored nor sent.

Who did *not* get a message is checked with a marker: a table event
published after the message on the same channel. A watcher that has the
marker's version and no chat would have had the chat first.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from nardy.server.services.chat import ChatBuckets

OPENING = [(3, 1)]
BANK_CLOCK = {"delay_seconds": 12, "bank_seconds_per_point": 90}
"""A rated table needs a bank clock."""


def chat_lines(player: Any) -> list[dict[str, Any]]:
    """Every chat message ``player`` has received so far, kept by id as a client keeps them (history and live
    alike: one written just as the player subscribed may come in both), in the order of their ids."""
    kept = {line["id"]: line for message in player.other if message.get("t") == "chat" for line in message["messages"]}
    return [kept[key] for key in sorted(kept)]


def wait_chat(player: Any, count: int) -> list[dict[str, Any]]:
    """Read until ``player`` has received ``count`` chat messages; returns them."""
    deadline = time.monotonic() + 5
    while len(chat_lines(player)) < count:
        assert time.monotonic() < deadline, f"{player.name} got {chat_lines(player)}, not {count} chat messages"
        player.recv(deadline - time.monotonic())
    return chat_lines(player)


def chat_replies(player: Any) -> list[dict[str, Any]]:
    """The ``chat`` messages ``player`` has received (each with its ``messages``)."""
    return [message for message in player.other if message.get("t") == "chat"]


def test_players_write_and_read_and_the_table_does_not_change(game_server) -> None:
    table, (alice, bob) = game_server.match("georgian", 1, opening=OPENING)
    version = alice.version()
    logged = game_server.record(table)["events"]

    ack = alice.ok("say", text="  Good luck, <b>friend</b>!  ", action_id="hello-1")
    assert ack == {"t": "ack", "action_id": "hello-1", "table": table, "version": version}
    (line,) = wait_chat(bob, 1)
    assert {k: line[k] for k in ("seat", "user_id", "name", "text", "phrase")} == {
        "seat": 0, "user_id": alice.user["id"], "name": alice.user["username"],
        "text": "Good luck, <b>friend</b>!", "phrase": None,
    }
    assert wait_chat(alice, 1) == [line], "the writer gets their own message too"

    bob.ok("say", phrase="thanks")
    second = wait_chat(alice, 2)[1]
    assert (second["seat"], second["text"], second["phrase"]) == (1, None, "thanks")
    assert second["id"] > line["id"]
    assert wait_chat(bob, 2) == [line, second]

    # sent again with the same action id: acknowledged, neither stored nor sent again
    again = alice.act("say", text="x" * 500, action_id="hello-1")  # whatever it says now
    assert again == ack
    bob.ok("chat_spectators", allow=True)  # an event: a marker after it on the table's channel
    alice.catch_up(bob.version())
    assert chat_lines(alice) == [line, second]

    record = game_server.record(table)
    assert record["chat"] == [line, second]
    assert record["events"][: len(logged)] == logged
    assert [e["kind"] for e in record["events"][len(logged):]] == ["chat_spectators_set"], "the chat added none"
    assert alice.gaps == [] and bob.gaps == []


def test_refused_messages_change_nothing(game_server) -> None:
    table, (alice, bob) = game_server.match("georgian", 1, opening=OPENING)
    carol = game_server.player()
    visitor = game_server.player(sign_up=False)
    for person in (carol, visitor):
        person.subscribe(table)

    assert alice.refused("say", text="x" * 201)["code"] == "chat_too_long"
    assert alice.refused("say", text=" \t ")["code"] == "bad_chat"
    assert alice.refused("say", text="two\nlines")["code"] == "bad_chat"
    assert alice.refused("say", text="hi", phrase="thanks")["code"] == "bad_message"
    assert alice.refused("say")["code"] == "bad_message"
    assert alice.refused("say", phrase="insult")["code"] == "bad_message"
    assert alice.refused("say", text="")["code"] == "bad_message"
    assert carol.refused("say", text="I only watch")["code"] == "not_seated"
    assert visitor.refused("say", text="me too")["code"] == "not_signed_in"
    assert carol.refused("chat_spectators", allow=True)["code"] == "not_seated"
    alice.ok("say", text="x" * 200)

    (line,) = wait_chat(bob, 1)
    assert line["text"] == "x" * 200
    assert game_server.record(table)["chat"] == [line]

    ann, ben, cid = (game_server.guest() for _ in range(3))
    chouette = ann.post("/api/chouettes", {"max_players": 3}).json()["table"]
    for player in (ben, cid):
        assert player.post(f"/api/chouettes/{chouette}/join").status_code == 200
    ann.subscribe(chouette)
    assert ann.refused("say", chouette, text="hello")["code"] == "unknown_action"
    assert ann.refused("chat_spectators", chouette, allow=True)["code"] == "unknown_action"
    assert game_server.client.get(f"/api/tables/{chouette}/chat").status_code == 404


def test_each_player_has_a_rate(make_game_server) -> None:
    server = make_game_server(chat_burst=2, chat_messages_per_minute=6)
    table, (alice, bob) = server.match("georgian", 1, opening=OPENING)
    alice.ok("say", text="one", action_id="a-1")
    alice.ok("say", phrase="thanks")
    for _ in range(3):
        refused = alice.refused("say", text="three")
        assert (refused["code"], refused["message"]) == (
            "chat_rate_limited", "too many chat messages: wait 10 s before the next one",
        )
    assert alice.act("say", text="one", action_id="a-1")["t"] == "ack", "a repeat is acknowledged whatever the rate"
    bob.ok("say", text="my own rate")
    assert [line["text"] for line in wait_chat(bob, 3)] == ["one", None, "my own rate"]
    assert [line["text"] for line in server.record(table)["chat"]] == ["one", None, "my own rate"]


def test_the_bucket_refills_and_refusals_cost_nothing() -> None:
    now = [0.0]
    buckets = ChatBuckets(per_minute=6, burst=2, now=lambda: now[0])
    for _ in range(2):
        assert buckets.wait("t", 1) == 0
        buckets.spend("t", 1)
    assert buckets.wait("t", 1) == pytest.approx(10.0)
    assert buckets.wait("t", 2) == 0 and buckets.wait("u", 1) == 0, "per user and per table"
    now[0] = 9.0
    assert buckets.wait("t", 1) == pytest.approx(1.0), "asking spent nothing"
    now[0] = 10.0
    assert buckets.wait("t", 1) == 0


def test_spectators_read_the_chat_of_an_unrated_table(game_server) -> None:
    table, (alice, bob) = game_server.match("georgian", 1, opening=OPENING)
    watcher = game_server.player(sign_up=False)
    watcher.subscribe(table)
    assert watcher.state()["chat"] == {"spectators": [False, False], "public": True}
    assert chat_replies(watcher) == [], "no chat message after the sync while there is nothing to read"

    alice.ok("say", text="hello, audience")
    bob.ok("say", phrase="good_luck")
    lines = wait_chat(watcher, 2)
    assert [(line["text"], line["phrase"]) for line in lines] == [("hello, audience", None), (None, "good_luck")]

    late = game_server.player(sign_up=False)
    assert late.subscribe(table)["t"] == "sync"
    assert wait_chat(late, 2) == lines, "a new watcher gets the history after the sync"
    response = late.client.get(f"/api/tables/{table}/chat")
    assert response.status_code == 200 and response.json() == {"table": table, "messages": lines}
    assert game_server.record(table)["chat"] == lines


def test_a_rated_chat_is_the_players_own_until_both_allow_spectators(game_server) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, opening=OPENING, players=[alice, bob], rated=True, **BANK_CLOCK)
    visitor = game_server.player(sign_up=False)
    for person in (carol, visitor):
        person.subscribe(table)
    assert visitor.state()["chat"] == {"spectators": [False, False], "public": False}

    alice.ok("say", text="between us")
    private = wait_chat(bob, 1)
    alice.ok("chat_spectators", allow=True)  # an event: the marker after the message
    for person in (carol, visitor, bob):
        state = person.catch_up(alice.version())
        assert state["chat"] == {"spectators": [True, False], "public": False}
    assert chat_lines(carol) == [] and chat_lines(visitor) == []
    assert alice.refused("chat_spectators", allow=True)["code"] == "illegal"
    assert carol.client.get(f"/api/tables/{table}/chat").status_code == 403
    assert visitor.client.get(f"/api/tables/{table}/record").json()["chat"] is None
    assert alice.client.get(f"/api/tables/{table}/record").json()["chat"] == private
    newcomer = game_server.player(sign_up=False)
    newcomer.subscribe(table)
    newcomer.send({"t": "ping"})
    while newcomer.recv()["t"] != "pong":
        pass
    assert chat_replies(newcomer) == [], "no history for a spectator who may not read it"

    bob.ok("chat_spectators", allow=True)
    assert visitor.catch_up(bob.version())["chat"] == {"spectators": [True, True], "public": True}
    response = visitor.client.get(f"/api/tables/{table}/chat")
    assert response.status_code == 200 and response.json()["messages"] == private, "now the history is theirs"
    bob.ok("say", text="hello, everyone")
    public = wait_chat(visitor, 1)
    assert [line["text"] for line in public] == ["hello, everyone"]
    assert [line["text"] for line in wait_chat(carol, 1)] == ["hello, everyone"]
    newcomer.subscribe(table)  # again: the reply is followed by the whole history now
    history = wait_chat(newcomer, 2)
    assert [line["text"] for line in history] == ["between us", "hello, everyone"]
    assert chat_replies(newcomer)[-1]["messages"] == history

    alice.ok("chat_spectators", allow=False)
    alice.ok("say", text="between us again")
    assert [line["text"] for line in wait_chat(bob, 3)] == ["between us", "hello, everyone", "between us again"]
    bob.ok("chat_spectators", allow=False)  # the marker
    for person in (carol, visitor, newcomer):
        assert person.catch_up(bob.version())["chat"] == {"spectators": [False, False], "public": False}
    assert [line["text"] for line in chat_lines(visitor)] == ["hello, everyone"]
    assert [line["text"] for line in chat_lines(carol)] == ["hello, everyone"]

    record = alice.client.get(f"/api/tables/{table}/record").json()
    flags = [e for e in record["events"] if e["kind"] == "chat_spectators_set"]
    assert [(e["seat"], e["payload"]) for e in flags] == [
        (0, {"seat": 0, "user_id": alice.user["id"], "allow": True}),
        (1, {"seat": 1, "user_id": bob.user["id"], "allow": True}),
        (0, {"seat": 0, "user_id": alice.user["id"], "allow": False}),
        (1, {"seat": 1, "user_id": bob.user["id"], "allow": False}),
    ]
    frames = game_server.client.get(f"/api/tables/{table}/replay").json()["frames"]
    assert all(frame["kind"] != "chat_spectators_set" for frame in frames), "the replay shows no chat settings"


def test_the_chat_survives_a_restart(make_game_server) -> None:
    first = make_game_server()
    table, (alice, bob) = first.match("georgian", 1, opening=OPENING)
    alice.ok("say", text="before the restart", action_id="kept")
    bob.ok("say", phrase="well_played")
    before = wait_chat(bob, 2)
    version = alice.version()
    first.stop()

    second = make_game_server(data_dir=first.data_dir)
    watcher = second.player(sign_up=False)
    assert watcher.subscribe(table)["version"] == version
    assert wait_chat(watcher, 2) == before

    again = second.player(alice.name, sign_up=False, connect=False)
    again.client.cookies = alice.client.cookies
    again.user = alice.user
    again.connect()
    again.subscribe(table)
    assert wait_chat(again, 2) == before
    assert again.act("say", text="before the restart", action_id="kept") == {
        "t": "ack", "action_id": "kept", "table": table, "version": version,
    }
    again.ok("say", text="after the restart")
    after = wait_chat(watcher, 3)[2]
    assert after["text"] == "after the restart" and after["id"] > before[1]["id"]
    assert second.record(table)["chat"] == [*before, after]
    assert second.view(table)["version"] == version
