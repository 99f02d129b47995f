"""Resync: a client that was away subscribes with ``since`` and gets exactly what it missed."""

from __future__ import annotations

import asyncio
import time

from nardy.server.ws.publisher import table_channel
from nardy.server.ws.wire import encode


MOVE_31 = [{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]
MOVE_65 = [{"source": 13, "target": 7, "die": 6}, {"source": 13, "target": 8, "die": 5}]


def _play_a_little(server, alice, bob):
    """Alice plays 3-1, Bob rolls 6-5 and plays it, Alice rolls and steps once."""
    alice.ok("move", steps=MOVE_31)
    bob.catch_up(alice.version())
    server.push((6, 5), (2, 1))
    bob.ok("roll")
    bob.ok("move", steps=MOVE_65)
    alice.catch_up(bob.version())
    alice.ok("roll")
    alice.ok("step", source=13, die=2)
    bob.catch_up(alice.version())


def _untimed(events):
    return [{k: v for k, v in e.items() if k != "at"} for e in events]


def test_resubscribing_with_since_gets_exactly_the_missed_events(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    carol = game_server.player(sign_up=False)
    seen = carol.subscribe(table)["version"]
    carol.close()

    _play_a_little(game_server, alice, bob)
    now = alice.version()
    assert now > seen + 4

    carol.connect()
    reply = carol.subscribe(table, since=seen)
    assert reply["t"] == "events"
    assert reply["from_version"] == seen + 1
    assert reply["version"] == now
    versions = [e["version"] for e in reply["events"]]
    assert versions == list(range(seen + 1, now + 1))
    record = game_server.record(table)["events"]
    assert reply["events"] == record[seen:]
    assert reply["state"] == alice.state() | {"server_time": reply["state"]["server_time"]}
    # What the players saw live is the same, less the time's spelling (see below).
    assert _untimed(reply["events"]) == _untimed(alice.events[table])

    # And from then on it follows live.
    carol_after = carol.version()
    alice.ok("step", source=6, die=1)
    carol.catch_up(alice.version())
    assert carol.gaps == []
    assert carol.events[table][-1]["version"] == carol_after + 1


def test_resubscribing_at_the_current_version_gets_a_sync(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    _play_a_little(game_server, alice, bob)
    current = alice.version()
    watcher = game_server.player(sign_up=False)
    for since in (current, current + 5):
        reply = watcher.subscribe(table, since=since)
        assert reply["t"] == "sync", since
        assert reply["version"] == current
        assert reply["state"]["version"] == current


def test_since_zero_replays_the_whole_log(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    _play_a_little(game_server, alice, bob)
    watcher = game_server.player(sign_up=False)
    reply = watcher.subscribe(table, since=0)
    assert reply["t"] == "events" and reply["from_version"] == 1
    assert reply["events"] == game_server.record(table)["events"]
    kinds = [e["kind"] for e in reply["events"]][:7]
    assert kinds == [
        "seated", "seed_committed", "seated", "match_started", "game_started", "seed_committed", "opening_rolled",
    ]


def test_too_far_behind_gets_a_sync_instead(make_game_server):
    server = make_game_server(resync_event_limit=3)
    table, (alice, bob) = server.match("georgian", 1, opening=[(3, 1)])
    _play_a_little(server, alice, bob)
    current = alice.version()
    watcher = server.player(sign_up=False)
    assert watcher.subscribe(table, since=current - 4)["t"] == "sync"
    reply = watcher.subscribe(table, since=current - 3)
    assert reply["t"] == "events" and len(reply["events"]) == 3


def test_a_client_watching_two_tables_keeps_them_apart(game_server):
    first, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    second, (carol, dave) = game_server.match("backgammon", 1, opening=[(1, 3)])
    watcher = game_server.player(sign_up=False)
    watcher.subscribe(first)
    watcher.subscribe(second)
    alice.ok("move", steps=MOVE_31)
    dave.ok("move", second, steps=MOVE_31)
    watcher.catch_up(alice.version(first), first)
    watcher.catch_up(dave.version(second), second)
    assert watcher.events[first][-1]["seat"] == 0
    assert watcher.events[second][-1]["seat"] == 1
    assert watcher.state(first)["variant"] == "georgian"
    assert watcher.state(second)["variant"] == "backgammon"
    watcher.send({"t": "unsubscribe", "table": first})
    watcher.send({"t": "ping"})
    while watcher.recv()["t"] != "pong":
        pass
    bob.catch_up(alice.version())
    game_server.push((2, 1))
    bob.ok("roll", first)
    assert [m for m in watcher.drain() if m.get("table") == first] == []


def test_an_event_has_the_same_time_live_and_in_the_record(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    alice.ok("move", steps=MOVE_31)
    live = alice.events[table][-1]
    stored = game_server.record(table)["events"][live["version"] - 1]
    assert stored["version"] == live["version"]
    assert stored["at"] == live["at"]


def test_what_is_published_while_a_subscription_is_answered_follows_the_reply(game_server, monkeypatch):
    """A batch committed between watching a table and reading its state comes after the sync, and only once.

    The hub forwards a table's messages from the moment the connection watches
    it; the sync is read just after. What was published in between is either
    already in the sync (dropped) or newer (sent after it), never before it.
    """
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    service = game_server.app.state.tables
    pubsub = game_server.app.state.pubsub
    snapshot = service.snapshot

    async def snapshot_while_others_publish(table_id):
        version, state = await snapshot(table_id)
        stale = {"t": "events", "table": table_id, "from_version": version, "version": version, "events": [],
                 "state": state}
        newer = stale | {"from_version": version + 1, "version": version + 1}
        for message in (stale, {"t": "chat", "table": table_id, "messages": []}, newer):
            await pubsub.publish(table_channel(table_id), encode(message))
        await asyncio.sleep(0.05)  # the hub's feed forwards them meanwhile
        return version, state

    monkeypatch.setattr(service, "snapshot", snapshot_while_others_publish)
    watcher = game_server.player(sign_up=False)
    reply = watcher.subscribe(table)
    assert reply["t"] == "sync"
    following = [(m["t"], m.get("version")) for m in watcher.drain() if m.get("table") == table]
    assert following == [("chat", None), ("events", reply["version"] + 1)]


def test_a_chat_message_written_while_a_subscription_is_answered_comes_once(game_server, monkeypatch) -> None:
    """Live chat published while the subscriber's chat history is read is held back and not sent again."""
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    directory = game_server.app.state.directory
    history = directory.chat_history
    said = []

    carol = game_server.player()  # signed in: a spectator the players' chat reaches, live and in the history

    async def history_after_a_message(table_id, user_id):
        if user_id == carol.user["id"] and not said:  # alice writes while carol's subscription is answered
            said.append(await game_server.app.state.chat.say(
                table, user_id=alice.user["id"], action={"t": "say", "text": "hi"}, action_id="while",
            ))
        return await history(table_id, user_id)

    monkeypatch.setattr(directory, "chat_history", history_after_a_message)
    assert carol.subscribe(table)["t"] == "sync"
    deadline = time.monotonic() + 10
    while not said:  # "hi" is stored before "after" is written, so the two keep their order (ids)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    alice.ok("say", text="after")
    bob.catch_up(alice.version())
    lines = []
    deadline = time.monotonic() + 10
    while [line["text"] for line in lines][-1:] != ["after"]:
        assert time.monotonic() < deadline, lines
        message = carol.recv(deadline - time.monotonic())
        if message["t"] == "chat":
            lines.extend(message["messages"])
    assert [line["text"] for line in lines] == ["hi", "after"]
