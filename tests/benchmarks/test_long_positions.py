"""benchmarks.long_positions and benchmarks.long_benchmark: reproducible labelled positions and the loss figure."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks.long_bearoff import race_losses
from benchmarks.long_benchmark import main as benchmark_main
from benchmarks.long_benchmark import score
from benchmarks.long_positions import DEFAULT_OUT, label, label_all, network_evaluator, self_play_samples, stream_counts
from benchmarks.long_positions import main as positions_main
from nardy.bots.evaluator import equity
from nardy.bots.race import RaceEvaluator
from nardy.bots.search import after_values
from nardy.bots.supervised import read_labelled
from nardy.notation import position_from_dict


def test_samples_are_reproducible_and_have_a_choice() -> None:
    first = list(self_play_samples("long-bolshie", 6, seed=4))
    again = list(self_play_samples("long-bolshie", 6, seed=4))
    assert first == again
    assert all(len(s.position.legal_plays(s.dice)) > 1 for s in first)
    assert first != list(self_play_samples("long-bolshie", 6, seed=5))


def test_stream_zero_is_the_sequence_of_games_made_before_streams_and_other_streams_differ() -> None:
    assert list(self_play_samples("long-tournament", 3, seed=4, stream=0)) == list(self_play_samples("long-tournament", 3, seed=4))
    assert list(self_play_samples("long-tournament", 3, seed=4, stream=1)) != list(self_play_samples("long-tournament", 3, seed=4))
    assert stream_counts(7, 3) == [3, 2, 2] and stream_counts(2, 4) == [1, 1, 0, 0]


def test_a_search_label_is_the_search_value_of_each_candidate_with_no_error() -> None:
    sample = next(iter(self_play_samples("long-traditional", 1, seed=2)))
    entry = label(sample, top=3, trials=36, truncate=7, seed=0, plies=1)
    rows = entry["candidates"]
    positions = [position_from_dict(row["position"]) for row in rows]
    expected = after_values(RaceEvaluator(network_evaluator("long-traditional", None)), positions, 1)
    for row, probabilities in zip(rows, expected):
        assert row["probabilities"] == pytest.approx(probabilities.tolist(), abs=1e-6)
        assert row["equity"] == pytest.approx(float(equity(probabilities)), abs=1e-6)
        assert row["equity_error"] == row["loss_error"] == 0.0
    assert min(row["loss"] for row in rows) == 0.0


def test_streams_and_batches_change_no_entry_whatever_the_workers() -> None:
    settings = {"positions": 3, "top": 2, "trials": 1, "truncate": None, "plies": 1, "seed": 5, "rate": 0.5,
                "streams": 2, "weights_file": None}
    one = label_all(["long-bolshie"], settings, workers=1, batch=2)
    two = label_all(["long-bolshie"], settings, workers=2, batch=1)
    assert one == two and [entry["index"] for entry in one] == [0, 1, 2]
    first_stream = list(self_play_samples("long-bolshie", 2, seed=5, rate=0.5))
    assert [position_from_dict(entry["position"]) for entry in one[:2]] == [s.position for s in first_stream]


def test_a_tiny_labelled_file_and_its_losses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "positions.json"
    args = ["--variant", "long-traditional", "--positions", "2", "--top", "2", "--trials", "3",
            "--truncate", "1", "--out", str(out)]
    assert positions_main(args) == 0
    document = json.loads(out.read_text())
    gzipped = tmp_path / "positions.json.gz"
    assert positions_main([*args[:-1], str(gzipped), "--workers", "2"]) == 0
    assert read_labelled(gzipped)["entries"] == document["entries"]
    for entry in document["entries"]:
        losses = [c["loss"] for c in entry["candidates"]]
        assert min(losses) == 0.0 and all(loss >= 0 for loss in losses)
    scores = score("ours:0", document["entries"])
    assert len(scores["long-traditional"].losses) == 2
    capsys.readouterr()
    assert benchmark_main(["--bot", "beginner", "--file", str(out)]) == 0
    assert "beginner       all" in capsys.readouterr().out
    assert benchmark_main(["--bot", "ours:0", "--file", str(out), "--positions", "1"]) == 0
    assert "ours:0         all                       1" in capsys.readouterr().out


def test_race_losses_are_exact_and_never_negative() -> None:
    losses, forced = race_losses("long-tournament", 1, plies=0, seed=2)  # a game that ends in a bear-off race
    assert losses and all(loss >= 0 for loss in losses)
    assert forced >= 0


def test_the_committed_labelled_positions_are_legal_and_consistent() -> None:
    document = read_labelled(DEFAULT_OUT)
    entries = document["entries"]
    assert document["format"] == 1 and document["complete"] and len(entries) >= 10_000
    assert [entry["index"] for entry in entries] == list(range(len(entries)))
    for entry in random.Random(0).sample(entries, 200):
        position = position_from_dict(entry["position"])
        legal = {play.position for play in position.legal_plays(tuple(entry["dice"]))}
        assert len(legal) == entry["plays"] > 1
        assert {position_from_dict(c["position"]) for c in entry["candidates"]} <= legal
        assert min(c["loss"] for c in entry["candidates"]) == 0.0


def test_a_deadline_labels_a_subset_of_the_full_run_in_turns() -> None:
    settings = {"positions": 2, "top": 2, "trials": 2, "truncate": 1, "seed": 3, "weights_file": None}
    variants = ["long-bolshie", "long-traditional"]
    full = label_all(variants, settings, workers=2)
    assert [entry["index"] for entry in full] == [0, 1, 2, 3]
    assert [entry["variant"] for entry in full] == ["long-bolshie"] * 2 + ["long-traditional"] * 2
    cut = label_all(variants, settings, workers=1, deadline=0.0)
    assert all(entry in full for entry in cut)
