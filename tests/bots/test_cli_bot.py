"""``nardy bot --batch`` and ``nardy train``: the command-line contract of the bots."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import numpy as np
import pytest

from nardy.bots.encoding import LONG, raw_boards
from nardy.bots.network import Network
from nardy.bots.training import TrainConfig, Trainer
from nardy.cli import main
from nardy.notation import position_from_dict, position_to_dict
from nardy.rules import Position
from tests.bots.bot_positions import game_positions, random_position


def _read_line(stream: IO[str], timeout: float = 60.0) -> str:
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, "no answer: the bot did not flush its line"
    return stream.readline()


def _blocked_roll() -> dict[str, Any]:
    """A backgammon position where 6-6 cannot be played: the opponent holds every entry point."""
    points = [0] * 24
    for point in range(19, 25):
        points[point - 1] = -2
    points[0] = 14
    return {"position": {"variant": "backgammon", "points": points, "bar": [1, 3], "off": [0, 0]}, "dice": [6, 6]}


def test_batch_answers_each_line_as_soon_as_read() -> None:
    """One line out per line in, written before the next request arrives; null for no play; errors per line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nardy.cli", "bot", "--variant", "backgammon", "--level", "intermediate", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        requests: list[tuple[dict[str, Any] | str, str]] = []
        for seed in range(6):
            position, dice = random_position("backgammon", seed, turns=seed * 5)
            requests.append(({"position": position_to_dict(position), "dice": list(dice)}, "play"))
        requests.append((_blocked_roll(), "null"))
        requests.append(("not json", "error"))
        requests.append(({"position": position_to_dict(Position.start("georgian")), "dice": [3, 1]}, "error"))
        requests.append(({"position": position_to_dict(Position.start("backgammon")), "dice": [7, 1]}, "error"))
        requests.append(({"position": "start", "dice": [3, 1], "extra": 1}, "error"))
        requests.append(({"position": "start", "dice": [3, 1]}, "play"))
        for request, kind in requests:
            process.stdin.write((request if isinstance(request, str) else json.dumps(request)) + "\n")
            process.stdin.flush()
            answer = json.loads(_read_line(process.stdout))
            if kind == "error":
                assert set(answer) == {"error"} and answer["error"], (request, answer)
                continue
            assert set(answer) == {"play"}
            assert isinstance(request, dict)
            spec = request["position"]
            position = Position.start("backgammon") if spec == "start" else position_from_dict(spec)
            plays = position.legal_plays(request["dice"])
            if kind == "null":
                assert plays == [] and answer["play"] is None
                continue
            listed = {play.position: play for play in plays}
            chosen = position_from_dict(answer["play"]["position"])
            assert chosen in listed
            assert answer["play"]["text"]
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        assert process.stdout.read() == ""
    finally:
        process.kill()
        process.wait()


def test_bot_single_request(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bot", "--variant", "long-bolshie", "--level", "beginner", "--dice", "6", "5", "start"])
    answer = json.loads(capsys.readouterr().out)
    assert code == 0
    plays = Position.start("long-bolshie").legal_plays((6, 5))
    assert position_from_dict(answer["play"]["position"]) in {p.position for p in plays}


def test_bot_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "--variant", "backgammon"]) == 2
    assert main(["bot", "--variant", "long-traditional", "--level", "world-class", "--batch"]) == 2
    assert "known levels" in capsys.readouterr().err


@pytest.mark.parametrize("level", ["beginner", "world-class"])
def test_the_short_board_bot_answers_with_bgsage(level: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bot", "--variant", "georgian", "--level", level, "--seed", "1", "--dice", "6", "5", "start"])
    answer = json.loads(capsys.readouterr().out)
    assert code == 0
    plays = Position.start("georgian").legal_plays((6, 5))
    assert position_from_dict(answer["play"]["position"]) in {p.position for p in plays}


def _tiny(tmp_path: Path, games: int, **changes: Any) -> TrainConfig:
    return TrainConfig(
        variant="long-bolshie", checkpoint_dir=tmp_path, hidden=6, games=games, seed=5,
        checkpoint_every=2, benchmark_every=0, **changes,
    )


def test_training_resumes_exactly(tmp_path: Path) -> None:
    """Stopping after 2 games and resuming to 4 gives the same weights as 4 games straight."""
    straight = Trainer(_tiny(tmp_path / "a", 4))
    straight.train()
    first = Trainer(_tiny(tmp_path / "b", 2))
    first.train()
    resumed = Trainer(_tiny(tmp_path / "b", 4))
    assert resumed.games == 2
    resumed.train()
    for a, b in zip(straight.network.parameters(), resumed.network.parameters()):
        assert np.array_equal(a, b)
    exported = resumed.export(tmp_path / "long.npz")
    network = Network.load(exported)
    assert network.meta["games"] == 4 and network.meta["family"] == "long" and network.meta["seed"] == 5
    assert exported.stat().st_size < 1_000_000


def test_training_grows_a_smaller_network(tmp_path: Path) -> None:
    """``--init`` with fewer hidden units than ``--hidden``: the same ratings at first, then training."""
    old = Network.initial(inputs=LONG.inputs, hidden=4, seed=3, family="long")
    old.save(tmp_path / "old.npz", exact=True)
    trainer = Trainer(_tiny(tmp_path / "run", 1, init=tmp_path / "old.npz"))
    grown = trainer.network
    assert (grown.inputs, grown.hidden) == (LONG.inputs, 6)
    x = LONG.encode(raw_boards(game_positions("long-bolshie", seed=3, count=30)))
    assert np.allclose(grown.forward(x), old.forward(x), atol=1e-12)
    trainer.train()
    assert trainer.games == 1
    Network.initial(inputs=50, hidden=4, seed=3, family="long").save(tmp_path / "odd.npz")
    with pytest.raises(ValueError, match="not a long-family network"):
        Trainer(_tiny(tmp_path / "odd-run", 1, init=tmp_path / "odd.npz"))


def test_train_command_resumes_and_benchmarks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["train", "--variant", "long-traditional", "long-bolshie", "--hidden", "6", "--out", str(tmp_path),
              "--checkpoint-every", "1", "--benchmark-games", "2", "--no-progress"]
    assert main([*common, "--games", "2", "--benchmark-every", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 games: vs random" in out and "saved checkpoint-000000002.npz" in out
    assert main([*common, "--games", "3", "--benchmark-every", "0"]) == 0
    out = capsys.readouterr().out
    assert "resuming" in out and "at 2 games" in out
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress["games"] == 3 and len(progress["benchmarks"]) == 1


def test_train_features_command_warm_starts_a_contact_and_race_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nardy train --features --init long.npz``: the long network's weights on the inputs it knows, both
    networks, benchmarked against the random bot and the previous pair."""
    Network.initial(inputs=LONG.inputs, hidden=6, seed=3, family="long").save(tmp_path / "long.npz")
    out_dir = tmp_path / "run"
    assert main(["train", "--variant", "long-traditional", "--features", "--init", str(tmp_path / "long.npz"),
                 "--out", str(out_dir), "--games", "2", "--checkpoint-every", "1", "--benchmark-every", "1",
                 "--benchmark-games", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "2 games: vs random" in out and "vs previous" in out
    assert json.loads((out_dir / "progress.json").read_text())["config"]["family"] == "long-features"
    assert main(["train", "--variant", "plakoto", "--features", "--out", str(tmp_path / "p"), "--games", "1"]) != 0
    assert "no contact-and-race encoding extends the plakoto family" in capsys.readouterr().err


def test_average_command_writes_the_mean_of_checkpoints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``nardy average --out FILE A B``: the mean network in FILE (float64); files that are not networks of one
    shape are refused with the reason and nothing written."""
    for seed in (1, 2):
        Network.initial(inputs=LONG.inputs, hidden=4, seed=seed, family="long").save(tmp_path / f"{seed}.npz",
                                                                                      exact=True)
    out = tmp_path / "mean.npz"
    assert main(["average", "--out", str(out), str(tmp_path / "1.npz"), str(tmp_path / "2.npz")]) == 0
    assert "the mean of 2 networks" in capsys.readouterr().out
    one, two, mean = (Network.load(tmp_path / name) for name in ("1.npz", "2.npz", "mean.npz"))
    assert np.allclose(mean.w1, (one.w1 + two.w1) / 2) and mean.meta["averaged"] == ["1.npz", "2.npz"]
    Network.initial(inputs=LONG.inputs, hidden=5, seed=3, family="long").save(tmp_path / "wide.npz")
    assert main(["average", "--out", str(tmp_path / "bad.npz"), str(tmp_path / "1.npz"), str(tmp_path / "wide.npz")]) != 0
    assert "one kind, family and shape" in capsys.readouterr().err and not (tmp_path / "bad.npz").exists()


def test_train_keeps_as_many_checkpoints_as_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--keep-checkpoints 3`` leaves the three newest (two by default), to be averaged afterwards; 0 is refused."""
    common = ["train", "--variant", "long-traditional", "--hidden", "4", "--checkpoint-every", "1",
              "--benchmark-every", "0", "--no-progress", "--games", "4"]
    assert main([*common, "--out", str(tmp_path / "three"), "--keep-checkpoints", "3"]) == 0
    assert sorted(p.name for p in (tmp_path / "three").glob("checkpoint-*.npz")) == [
        f"checkpoint-00000000{n}.npz" for n in (2, 3, 4)]
    assert main([*common, "--out", str(tmp_path / "two")]) == 0
    assert len(list((tmp_path / "two").glob("checkpoint-*.npz"))) == 2
    capsys.readouterr()
    assert main([*common, "--out", str(tmp_path / "none"), "--keep-checkpoints", "0"]) != 0
    assert "--keep-checkpoints is 1 or more" in capsys.readouterr().err
