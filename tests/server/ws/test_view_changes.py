"""Live ``events`` carry the view as the parts that changed (``nardy.server.ws.view_changes``).

What a watcher builds from the changes must be exactly the view a newcomer's
``sync`` gets, and the view goes whole wherever the changes could not be
applied (its shape changed, or this process did not publish the version before).
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from nardy.server.ws.view_changes import apply_changes, show

MOVE_31 = [{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]
MOVE_65 = [{"source": 13, "target": 7, "die": 6}, {"source": 13, "target": 8, "die": 5}]


def changes_between(before: dict[str, Any], after: dict[str, Any]) -> Any:
    """The changes from ``before`` to ``after`` as a client parses them off the wire (None: the whole view)."""
    return _as_received(show(after, 2, show(before, 1, None)[0])[1])


def _as_received(changes: Any) -> Any:
    """The changes as a client parses them off the wire."""
    return orjson.loads(orjson.dumps(changes))


def _without_time(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "server_time"}


# ----- the diff itself

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(["a", "b", ""]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["x", "y", "z"]), inner, max_size=3), max_leaves=6)
views = st.dictionaries(st.sampled_from(["version", "seats", "game", "match", "chat"]), values, min_size=1)


@given(views, views)
def test_changes_rebuild_the_new_view_or_refuse_a_new_shape(before: dict[str, Any], after: dict[str, Any]) -> None:
    changes = changes_between(before, after)
    if changes is None:
        return
    assert apply_changes(before, changes) == after


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d"]), values, values), max_size=4))
def test_views_with_the_same_keys_always_go_as_changes(rows: list[tuple[str, Any, Any]]) -> None:
    before = {key: old for key, old, _ in rows}
    after = {key: new for key, _, new in rows}
    changes = changes_between(before, after)
    assert changes is not None
    assert apply_changes(before, changes) == after


@given(views)
def test_a_view_the_same_as_before_has_no_changes(view: dict[str, Any]) -> None:
    assert changes_between(view, view) == []


def test_only_the_changed_keys_of_an_object_go() -> None:
    before = {"version": 7, "options": {"cube": True}, "game": {"dice": [3, 1], "turn": 0, "boards": [1, 2]}}
    after = {"version": 8, "options": {"cube": True}, "game": {"dice": None, "turn": 1, "boards": [1, 2]}}
    changes = (changes_between(before, after))
    assert changes == [["version", 8], ["game", "dice", None], ["game", "turn", 1]]


def test_an_object_that_appears_goes_or_changes_its_keys_is_replaced_whole() -> None:
    waiting = {"version": 2, "game": None}
    playing = {"version": 3, "game": {"phase": "rolling", "dice": None}}
    moving = {"version": 4, "game": {"phase": "moving", "legal": {"steps": []}}}
    assert (changes_between(waiting, playing)) == [
        ["version", 3], ["game", {"phase": "rolling", "dice": None}]]
    assert (changes_between(playing, waiting)) == [
        ["version", 2], ["game", None]]
    assert (changes_between(playing, moving)) == [
        ["version", 4], ["game", {"phase": "moving", "legal": {"steps": []}}]]


def test_a_view_whose_keys_changed_goes_whole() -> None:
    assert changes_between({"version": 1}, {"version": 2, "game": None}) is None


def test_applying_changes_leaves_the_old_view_as_it_was() -> None:
    before = {"version": 1, "game": {"dice": [1, 2], "turn": 0}}
    after = apply_changes(before, [["version", 2], ["game", "dice", None]])
    assert before == {"version": 1, "game": {"dice": [1, 2], "turn": 0}}
    assert after == {"version": 2, "game": {"dice": None, "turn": 0}}


# ----- on the wire

def test_a_watcher_follows_the_changes_to_the_view_a_newcomer_gets(game_server) -> None:
    table, (alice, bob) = game_server.match("backgammon", 3, opening=[(3, 1)])
    carol = game_server.player(sign_up=False)
    carol.subscribe(table)
    game_server.push((6, 5), (2, 1))

    alice.ok("move", steps=MOVE_31)
    bob.catch_up(alice.version())
    bob.ok("roll")
    bob.ok("move", steps=MOVE_65)
    alice.catch_up(bob.version())
    alice.ok("roll")
    alice.ok("step", source=13, die=2)
    final = alice.version()

    live = []
    while carol.version() < final:
        message = carol.recv()
        if message["t"] == "events":
            live.append(message)
    assert live and all("changes" in m and "state" not in m for m in live), [sorted(m) for m in live]
    assert carol.gaps == []

    newcomer = game_server.player(sign_up=False)
    sync = newcomer.subscribe(table)
    assert sync["version"] == final
    for player in (alice, bob, carol):
        player.catch_up(final, table)
        assert _without_time(player.state(table)) == _without_time(sync["state"]), player.name


def test_changes_are_a_fraction_of_the_view(game_server) -> None:
    table, (alice, bob) = game_server.match("backgammon", 1, opening=[(3, 1)])
    carol = game_server.player(sign_up=False)
    state = carol.subscribe(table)["state"]
    whole = len(orjson.dumps(state))
    mover = (alice, bob)[state["actor"]]
    step = state["game"]["legal"]["steps"][0]
    mover.ok("step", source=step["source"], die=step["die"])
    message = carol.recv()
    while message["t"] != "events":
        message = carol.recv()
    assert "changes" in message
    assert len(orjson.dumps(message["changes"])) < whole / 2


def test_the_game_that_begins_comes_as_changes(game_server) -> None:
    alice, bob = game_server.guest(), game_server.guest()
    table = game_server.create(alice, "backgammon", 1)["table"]
    carol = game_server.player(sign_up=False)
    assert carol.subscribe(table)["state"]["game"] is None
    game_server.push((3, 1))
    game_server.join(bob, table)
    started = carol.catch_up(carol.version() + 1)
    assert started["game"] is not None
    assert carol.gaps == []
    assert _without_time(started) == _without_time(game_server.view(table))
