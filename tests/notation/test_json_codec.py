"""One JSON codec per concept (:mod:`nardy.notation.json_codec`): a step, the game options, an event.

Each value survives the round trip unchanged, and a malformed document is a NotationError naming it.
"""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nardy.notation import NotationError, json_codec, transcript
from nardy.notation.json_codec import (
    event_from_dict,
    event_to_dict,
    options_from_dict,
    options_to_dict,
    step_from_dict,
    step_to_dict,
)
from nardy.rules import GameOptions, Step, WinKind
from nardy.rules.events import (
    Beavered,
    Doubled,
    Dropped,
    Moved,
    OpeningRolled,
    Passed,
    PlayEvent,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Stepped,
    Tied,
    TimedOut,
    Took,
    Undone,
)

steps = st.builds(Step, st.integers(0, 25), st.integers(0, 25), st.integers(1, 6), st.booleans())
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
players = st.integers(0, 1)
kinds = st.sampled_from(list(WinKind))
events: st.SearchStrategy[PlayEvent] = st.one_of(
    st.builds(OpeningRolled, dice, st.booleans()),
    st.builds(Rolled, players, dice),
    st.builds(Passed, players, dice),
    st.builds(Stepped, players, steps),
    st.builds(Undone, players),
    st.builds(Moved, players, dice, st.lists(steps, max_size=4).map(tuple)),
    st.builds(Doubled, players, st.sampled_from([2, 4, 8])),
    st.builds(Took, players, st.sampled_from([2, 4, 8])),
    st.builds(Beavered, players, st.sampled_from([4, 8, 16])),
    st.builds(Dropped, players),
    st.builds(ResignationOffered, players, kinds),
    st.builds(ResignationDeclined, players),
    st.builds(Resigned, players, kinds),
    st.builds(TimedOut, players),
    st.just(Tied()),
)


@given(steps)
def test_a_step_round_trips(step: Step) -> None:
    assert step_from_dict(step_to_dict(step)) == step


def test_a_step_without_hit_does_not_hit_and_a_malformed_one_is_named() -> None:
    assert step_from_dict({"source": 13, "target": 7, "die": 6}) == Step(13, 7, 6, False)
    with pytest.raises(NotationError, match="not a step"):
        step_from_dict({"source": 13, "die": 6})


@given(st.builds(
    GameOptions, cube=st.booleans(), jacoby=st.booleans(), automatic_doubles=st.integers(0, 1),
    backgammon_value=st.sampled_from([2, 3]), beavers=st.booleans(),
))
def test_options_round_trip(options: GameOptions) -> None:
    assert options_from_dict(options_to_dict(options)) == options


def test_options_left_out_take_their_defaults() -> None:
    assert options_from_dict({}) == GameOptions()
    assert options_from_dict({"cube": True, "beavers": True}) == GameOptions(cube=True, beavers=True)
    with pytest.raises(NotationError, match="not game options"):
        options_from_dict({"automatic_doubles": "many"})


@given(events)
def test_an_event_round_trips(event: PlayEvent) -> None:
    assert event_from_dict(event_to_dict(event)) == event


def test_an_event_is_named_as_the_log_names_it() -> None:
    assert event_to_dict(Passed(0, (6, 6))) == {"event": "passed", "player": 0, "dice": [6, 6]}
    assert event_to_dict(OpeningRolled((2, 5)))["first"] == 1
    assert event_to_dict(Stepped(1, Step(8, 5, 3)))["step"] == {"source": 8, "target": 5, "die": 3, "hit": False}


def test_a_malformed_event_is_named() -> None:
    with pytest.raises(NotationError, match="not an event kind"):
        event_from_dict({"event": "jumped"})
    with pytest.raises(NotationError, match="rolled event is malformed"):
        event_from_dict({"event": "rolled", "player": 0})


@pytest.mark.parametrize("module", [json_codec, transcript])
def test_docstring_examples(module: ModuleType) -> None:
    """The codec's and the transcript's examples run and say what they show."""
    failures, _ = doctest.testmod(module)
    assert failures == 0
