"""benchmarks.compare: two strength runs on the same dice, compared pair by pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.compare import compare, main


def run(values: dict[int, float], opponent: str = "pubeval") -> dict[str, object]:
    return {"matchups": [{"variant": "backgammon", "a": "ours 0-ply", "b": opponent,
                          "pairs": {str(k): v for k, v in values.items()}}]}


def test_pairs_are_matched_by_index_and_the_interval_is_of_the_differences() -> None:
    first = run({0: 1.0, 1: -1.0, 2: 0.5, 5: 2.0})
    second = run({0: 1.5, 1: -0.5, 2: 0.5, 3: 3.0})  # pair 3 and pair 5 are in one run only
    [difference] = compare(first, second)
    assert difference.pairs == 3
    assert difference.first_ppg == pytest.approx(0.5 / 3) and difference.second_ppg == pytest.approx(1.5 / 3)
    assert difference.mean == pytest.approx(1.0 / 3)
    # deltas 0.5, 0.5, 0: sd = 0.2887
    assert difference.half_width == pytest.approx(1.96 * (1 / 12) ** 0.5 / 3**0.5)


def test_only_shared_matchups_are_compared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare(run({0: 1.0, 1: 0.0}), run({0: 1.0, 1: 0.0}, opponent="gnubg 0-ply")) == []
    paths = []
    for name, values in (("a", {0: 1.0, 1: 0.0, 2: -1.0}), ("b", {0: 1.0, 1: 1.0, 2: -1.0})):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(run(values)))
        paths.append(str(path))
    assert main(paths) == 0
    assert "+0.333" in capsys.readouterr().out
    (tmp_path / "c.json").write_text(json.dumps(run({0: 1.0}, opponent="heuristic")))
    assert main([paths[0], str(tmp_path / "c.json")]) == 1
