"""The fair-play benchmark's parts: a schedule where every account plays its matches and never itself (with
as many engine accounts as asked, none included), a played match whose record replays (of several games and
with the cube where the variant asks for them, or wherever it has one when a match length is asked for), the
report's bands, intervals and pooled totals, over logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks.fair_play import LEVELS, main, match_terms, play_record, report, schedule, wilson
from nardy.bots.analysis import analyse
from nardy.bots.fair_play import FAIR_PLAY_LEVEL, RECENT_GAMES
from nardy.notation.transcript import transcript_from_record
from nardy.rules import GameOptions


def test_every_account_plays_its_matches_and_never_itself() -> None:
    matches = schedule("backgammon", accounts=4, games=10, seed=1)
    assert len(matches) == 4 * len(LEVELS) * 10 // 2
    played = Counter(name for _, a, _, b, _ in matches for name in (a, b))
    assert set(played.values()) == {10} and all(a != b for _, a, _, b, _ in matches)


def test_engine_accounts_are_counted_apart_from_the_noisy_ones() -> None:
    matches = schedule("backgammon", accounts=6, games=10, seed=1, engine_accounts=2)
    played = Counter(name for _, a, _, b, _ in matches for name in (a, b))
    assert sorted(name for name in played if name.startswith("expert")) == ["expert-0", "expert-1"]
    assert len(played) == 6 * 2 + 2 and set(played.values()) == {10}
    noisy_only = schedule("backgammon", accounts=6, games=10, seed=1, engine_accounts=0)
    assert {level for _, _, level_a, _, level_b in noisy_only for level in (level_a, level_b)} == {
        "beginner", "intermediate"}


def test_twenty_matches_each_are_scheduled_without_self_matches() -> None:
    matches = schedule("hypergammon", accounts=20, games=20, seed=4, engine_accounts=10)
    played = Counter(name for _, a, _, b, _ in matches for name in (a, b))
    assert len(played) == 50 and set(played.values()) == {20} and all(a != b for _, a, _, b, _ in matches)


def test_the_default_engine_count_keeps_the_schedule_of_earlier_logs() -> None:
    assert schedule("backgammon", 4, 10, 1) == schedule("backgammon", 4, 10, 1, engine_accounts=4)


def test_a_variant_without_one_point_matches_plays_its_shortest_and_its_required_cube() -> None:
    assert match_terms("backgammon")[0] == 1 and not match_terms("backgammon")[1].cube
    assert match_terms("dave")[0] == 3 and match_terms("dave")[1].cube
    assert match_terms("tavli")[0] == 3 and not match_terms("tavli")[1].cube


def test_a_match_length_asked_for_brings_the_cube_wherever_the_variant_has_one() -> None:
    assert match_terms("backgammon", 3) == (3, GameOptions(cube=True))
    assert match_terms("tavla", 3)[1] == GameOptions(cube=False)
    with pytest.raises(ValueError, match="tavli is not played to 4 points"):
        match_terms("tavli", 4)


def test_a_cube_match_is_a_record_the_analysis_reads_with_its_cube_decisions() -> None:
    record = play_record("hypergammon", ("beginner", "expert"), "cube", 3)
    transcript = transcript_from_record(record)
    assert transcript.length == 3 and record["options"] == {"cube": True}
    assert any(event["kind"] == "doubled" for event in record["events"])
    kinds = {decision["kind"] for game in analyse(transcript, level=FAIR_PLAY_LEVEL).to_json()["games"]
             for decision in game["decisions"]}
    assert "move" in kinds and kinds - {"move"}


def test_a_played_match_of_several_games_is_a_record_the_analysis_reads() -> None:
    record = play_record("tavli", ("beginner", "beginner"), "seed")
    transcript = transcript_from_record(record)
    assert transcript.length == 3 and len(transcript.games) >= 2


def test_a_played_match_is_a_record_the_analysis_reads() -> None:
    record = play_record("georgian", ("beginner", "intermediate"), "seed")
    transcript = transcript_from_record(record)
    assert transcript.length == 1 and len(transcript.games) == 1


def test_the_report_judges_each_level_against_its_band() -> None:
    rows = []
    for number in range(10):
        for index in range(10):
            for level, best in (("beginner", 10), ("intermediate", 15 + index % 3)):
                rows.append({"variant": "v", "number": number, "analysis_seconds": 1.0,
                             "accounts": [f"{level}-{index}", f"expert-{index}"],
                             "figures": [{"counted": 30, "total_loss": 1.0 - best / 50, "unforced_moves": 30,
                                          "best_moves": best},
                                         {"counted": 30, "total_loss": 0.03, "unforced_moves": 30, "best_moves": 27}]})
    flags = report(rows)["v"]["flags"]
    assert flags["expert vs intermediate band"]["flagged"] == flags["expert vs intermediate band"]["accounts"] == 10
    assert flags["intermediate vs intermediate band"]["flagged"] == 0
    assert wilson(0, 10)[1] > 0.25 and wilson(10, 10)[0] > 0.69


def test_the_report_judges_an_account_on_its_newest_window() -> None:
    """An engine account whose first matches were noisy is judged on its latest window only, as the server
    judges it: matches numbered later are newer."""
    rows = []
    for number in range(40):
        for index in range(10):
            engine_best = 9 if number < 15 else 14
            rows.append({"variant": "v", "number": number * 10 + index, "analysis_seconds": 1.0,
                         "accounts": [f"intermediate-{index}", f"expert-{index}"],
                         "figures": [{"counted": 15, "total_loss": 0.3, "unforced_moves": 15,
                                      "best_moves": 8 + index % 3},
                                     {"counted": 15, "total_loss": 0.03 if number >= 15 else 0.3,
                                      "unforced_moves": 15, "best_moves": engine_best}]})
    answer = report(list(reversed(rows)))["v"]
    assert answer["flags"]["expert vs intermediate band"]["flagged"] == 10
    assert answer["levels"]["expert"]["games"] == 10 * RECENT_GAMES
    early = report(rows, after=12)["v"]
    assert early["flags"]["expert vs intermediate band"]["flagged"] == 0, "its first 12 matches were noisy"
    assert early["levels"]["expert"]["games"] == 10 * 12


def _rows(variant: str, noisy_best: int) -> list[dict[str, Any]]:
    return [{"variant": variant, "number": number * 10 + index, "analysis_seconds": 1.0,
             "accounts": [f"beginner-{index}", f"intermediate-{index}"],
             "figures": [{"counted": 30, "total_loss": 1.0, "unforced_moves": 30, "best_moves": noisy_best + index % 3},
                         {"counted": 30, "total_loss": 0.5, "unforced_moves": 30, "best_moves": 15 + index % 3}]}
            for number in range(10) for index in range(10)]


def test_the_pooled_totals_sum_every_variant_and_read_several_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pooled = report([*_rows("a", 8), *_rows("b", 9)])["pooled"]["beginner vs beginner band"]
    assert (pooled["flagged"], pooled["accounts"]) == (0, 20) and pooled["interval_95"][1] == round(wilson(0, 20)[1], 4)
    for name, rows in (("one.jsonl", _rows("a", 8)), ("two.jsonl", _rows("a", 9) + _rows("b", 9))):
        (tmp_path / name).write_text("".join(json.dumps(row) + "\n" for row in rows))
    main(["--report", "--log", str(tmp_path / "one.jsonl"), "--log", str(tmp_path / "two.jsonl")])
    answer = json.loads(capsys.readouterr().out)
    assert set(answer) == {"a (one.jsonl)", "a (two.jsonl)", "b", "pooled"}
    assert answer["pooled"]["intermediate vs intermediate band"]["accounts"] == 30
