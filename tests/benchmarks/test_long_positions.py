"""benchmarks.long_positions and benchmarks.long_benchmark: reproducible labelled positions and the loss figure."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks.long_bearoff import race_losses
from benchmarks.long_benchmark import main as benchmark_main
from benchmarks.long_benchmark import score
from benchmarks.long_positions import DEFAULT_OUT, label_all, self_play_samples
from benchmarks.long_positions import main as positions_main
from nardy.bots.supervised import read_labelled
from nardy.notation import position_from_dict


def test_samples_are_reproducible_and_have_a_choice() -> None:
    first = list(self_play_samples("long-bolshie", 6, seed=4))
    again = list(self_play_samples("long-bolshie", 6, seed=4))
    assert first == again
    assert all(len(s.position.legal_plays(s.dice)) > 1 for s in first)
    assert first != list(self_play_samples("long-bolshie", 6, seed=5))


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
    losses, forced = race_losses("long-tournament", 1, plies=0, seed=1)
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
