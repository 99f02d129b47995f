"""Transcripts: a table's record read as the actions of each game, replayed through the rules."""

from __future__ import annotations

import pytest

from nardy.notation import NotationError
from nardy.notation.transcript import games_of, replay, transcript_from_record
from nardy.rules import GameOptions
from tests.match_records import random_record

CASES = [
    ("backgammon", 3, GameOptions(cube=True)),
    ("backgammon", 0, GameOptions(cube=True, jacoby=True, beavers=True)),
    ("dave", 3, GameOptions(cube=True)),
    ("georgian", 3, GameOptions()),
    ("long-traditional", 1, GameOptions()),
    ("long-tournament", 1, GameOptions()),
    ("long-bolshie", 1, GameOptions()),
    ("nackgammon", 0, GameOptions(cube=True)),
    ("portes", 3, GameOptions()),
    ("fevga", 3, GameOptions()),
]


@pytest.mark.parametrize(("variant", "length", "options"), CASES)
def test_a_record_replays_to_the_match_it_came_from(variant: str, length: int, options: GameOptions) -> None:
    for seed in range(4):
        record, played = random_record(variant, seed, length=length, options=options)
        transcript = transcript_from_record(record)
        assert transcript.players == ("ann", "bob") and transcript.variant == variant
        steps = list(replay(transcript))
        final = steps[-1].match
        if length:
            assert (final.score, final.winner, final.timeouts) == (played.score, played.winner, played.timeouts)
        assert [r for step in steps if (r := step.game.result) is not None] == list(played.results)
        assert sum(len(game) for game in games_of(transcript)) == len(steps)


def test_what_the_server_plays_for_a_timed_out_player_is_marked_forced() -> None:
    for seed in range(40):
        record, _ = random_record("backgammon", seed)
        kinds = [e["kind"] for e in record["events"]]
        if "timed_out" in kinds[:-2]:
            break
    else:
        pytest.fail("no random match had a timeout")
    actions = [a for game in transcript_from_record(record).games for a in game.actions]
    index = next(i for i, a in enumerate(actions) if a.kind == "timeout")
    after = actions[index + 1]
    assert after.player == actions[index].player and after.forced
    assert not any(a.forced for a in actions[:index])
    assert any(not a.forced for a in actions[index + 1 :] if a.player is not None)


def test_a_malformed_record_is_refused_with_a_reason() -> None:
    with pytest.raises(NotationError, match="not a table record"):
        transcript_from_record({"variant": "chess", "match_length": 1, "events": []})
    record, _ = random_record("georgian", 1)
    moved = next(e for e in record["events"] if e["kind"] == "moved")
    moved["payload"]["steps"] = [{"source": 24, "target": 1, "die": 6}]
    with pytest.raises(NotationError, match=r"game 1, action \d+ \(move\)"):
        list(replay(transcript_from_record(record)))
