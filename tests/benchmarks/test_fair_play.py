"""The fair-play benchmark's parts: a schedule where every account plays its matches and never itself, a
played match whose record replays, the report's bands and intervals."""

from __future__ import annotations

from collections import Counter

from benchmarks.fair_play import LEVELS, play_record, report, schedule, wilson
from nardy.notation.transcript import transcript_from_record


def test_every_account_plays_its_matches_and_never_itself() -> None:
    matches = schedule("backgammon", accounts=4, games=10, seed=1)
    assert len(matches) == 4 * len(LEVELS) * 10 // 2
    played = Counter(name for _, a, _, b, _ in matches for name in (a, b))
    assert set(played.values()) == {10} and all(a != b for _, a, _, b, _ in matches)


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
