"""Match files read whatever their kind, and a match kept as the record it reads back from."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from nardy.notation import NotationError, transcript_to_mat, transcript_to_sgf
from nardy.notation.match_file import read_match_file
from nardy.notation.transcript import Transcript, record_from_transcript, replay, transcript_from_record
from nardy.rules import GameOptions
from tests.match_records import random_record

CASES = [
    ("backgammon", 3, GameOptions(cube=True)),
    ("backgammon", 0, GameOptions(cube=True, jacoby=True, beavers=True, automatic_doubles=1)),
    ("dave", 3, GameOptions(cube=True, backgammon_value=2)),
    ("georgian", 3, GameOptions()),
    ("long-traditional", 1, GameOptions()),
    ("hypergammon", 3, GameOptions(cube=True)),
    ("tavla", 3, GameOptions()),
    ("fevga", 3, GameOptions()),
]


def _numbered(transcript: Transcript) -> Transcript:
    """The transcript with its actions numbered from 1 through the match, as a kept record numbers them."""
    games, number = [], 0
    for game in transcript.games:
        actions = []
        for action in game.actions:
            number += 1
            actions.append(replace(action, source=number))
        games.append(replace(game, actions=tuple(actions)))
    return replace(transcript, games=tuple(games))


@pytest.mark.parametrize(("variant", "length", "options"), CASES)
def test_a_match_kept_as_a_record_reads_back_the_same(variant: str, length: int, options: GameOptions) -> None:
    """Every action (forced plays after a timeout too) comes back, numbered in order as its source."""
    for seed in range(3):
        record, _ = random_record(variant, seed, length=length, options=options)
        transcript = transcript_from_record(record)
        kept = record_from_transcript(transcript)
        again = transcript_from_record(json.loads(json.dumps(kept)))
        assert again == _numbered(transcript)
        assert [s.match.score for s in replay(again)] == [s.match.score for s in replay(transcript)]


def test_the_kind_is_known_by_the_name_else_by_the_beginning() -> None:
    record, _ = random_record("backgammon", 5, options=GameOptions(cube=True))
    transcript = transcript_from_record(record)
    record_text = json.dumps(record)
    mat, sgf = transcript_to_mat(transcript), transcript_to_sgf(transcript)
    for text, names in ((record_text, ("match.json", "download", "")), (mat, ("match.mat", "match.txt", "download")),
                        (sgf, ("match.sgf", "download"))):
        for name in names:
            read = read_match_file(text, name)
            assert (read.variant, read.length, read.players) == (transcript.variant, transcript.length, transcript.players)
            assert [len(g.actions) for g in read.games] == [len(g.actions) for g in transcript.games]
    assert read_match_file("\ufeff" + sgf).games == read_match_file(sgf).games


@pytest.mark.parametrize(("text", "name", "message"), [
    ("hello", "notes", "neither a table record"),
    ("{not json", "", "not valid JSON"),
    ("[1, 2]", "match.json", "a table record is a JSON object"),
    ("(;FF[4]GM[1])", "", "is not backgammon"),
    (" 3 point match\n\n Game 1\n nobody : 0\n", "match.mat", "expected the players and score"),
])
def test_what_cannot_be_read_is_refused_with_a_reason(text: str, name: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        read_match_file(text, name)


def test_a_record_the_rules_refuse_is_refused_when_read() -> None:
    """The .mat and SGF readers play every action as they read; a record is played once read, so a reader's
    caller never gets a match that stops half-way."""
    record, _ = random_record("backgammon", 5, options=GameOptions(cube=True))
    moved = next(e for e in record["events"] if e["kind"] == "moved")
    moved["payload"]["steps"] = [{"source": 24, "target": 1, "die": 6}]
    with pytest.raises(NotationError, match=r"^game 1, action \d+ \(move\): "):
        read_match_file(json.dumps(record), "illegal.json")
