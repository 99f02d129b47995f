"""GNU Backgammon as a backgammon opponent, run as a separate process.

What: a line-oriented JSON filter around GNU Backgammon's neural network
(PyPI ``gnubg-nn``, module ``gnubg_nn``): given a position and a roll it
answers the position after the play gnubg chooses at 0-ply (its bare
network) or deeper (``gnubg_nn.best_move(..., n=plies)``; 1 and 2 work).
benchmarks/strength.py plays our bots against it; tests/bots/test_pubeval.py
also asks it for gnubg's own pubeval scores.

Why a separate process: GNU Backgammon and ``gnubg-nn`` are GPL-3.0. The
``nardy`` package never imports them; callers talk to this script through
pipes only. If ``gnubg_nn`` is missing the script exits with status 3 and a
message on stderr, so callers can skip.

Run::

    pip install 'gnubg-nn==1.1.0a11'
    python benchmarks/gnubg_player.py [--plies N]

Protocol: one JSON object per stdin line, one JSON line per request on stdout
(flushed). The position is the canonical one from the side to move
(docs/rules.md §2; the same convention as tests/oracles/gnubg_movegen.py):
``points`` (24 ints, positive = side to move, which travels 24 -> 1),
``bar`` and ``off`` as ``[side to move, opponent]``.

* ``{"points", "bar", "off", "dice": [d1, d2], "plies"?: n}`` ->
  ``{"position": [28 ints]}``: points(24) + bar(2) + off(2) after gnubg's
  play, still from the mover's side (not turned); ``{"position": null}`` when
  the roll cannot be played. ``plies`` overrides ``--plies`` for one request.
* ``{"op": "pubeval", "points", "bar", "off"}`` -> ``{"score": x}``:
  ``gnubg_nn.pub_eval_score`` for the side to move of that board (gnubg picks
  race or contact weights by its own classification).
* ``{"op": "probabilities", "points", "bar", "off", "plies"?: n}`` ->
  ``{"probabilities": [5 floats]}``: gnubg's cubeless outputs for the side to
  move (win, win gammon, win backgammon, lose gammon, lose backgammon).

A malformed request gets ``{"error": "..."}`` and the process continues.

gnubg's board is ``board[2][25]``, each side from its own perspective (index
i = point i+1, index 24 = its bar), borne-off checkers not stored. For
``best_move``, ``moves`` and ``probabilities`` ``board[1]`` is the side on
roll (the one moved, or evaluated); ``pub_eval_score`` rates ``board[0]``, the
side that has just moved. The key ``best_move`` returns decodes with the
mover's row first, the other way round from the keys of ``moves``. These
were found by experiment and are checked: every answer of this script is
one of our legal plays (tests/bots/test_pubeval.py, benchmarks/strength.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

try:
    import gnubg_nn  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - depends on the environment
    sys.stderr.write("gnubg_nn not installed: pip install 'gnubg-nn==1.1.0a11'\n")
    sys.exit(3)

Board = list[list[int]]


def sides(points: list[int], bar: list[int]) -> tuple[list[int], list[int]]:
    """Canonical mover-perspective position -> (mover, opponent) rows, each from its own side."""
    mover = [max(p, 0) for p in points] + [bar[0]]
    opponent = [max(-points[23 - j], 0) for j in range(24)] + [bar[1]]
    return mover, opponent


def canonical(mover: tuple[int, ...], opponent: tuple[int, ...], mover_off: int, opponent_off: int) -> list[int]:
    """(mover, opponent) rows -> the canonical 28 ints, mover's view."""
    points = [mover[i] - opponent[23 - i] for i in range(24)]
    return points + [mover[24], opponent[24], mover_off, opponent_off]


def _position(req: dict[str, Any]) -> tuple[list[int], list[int], list[int]]:
    points, bar, off = req["points"], req["bar"], req["off"]
    if len(points) != 24 or len(bar) != 2 or len(off) != 2:
        raise ValueError("need 24 points, 2 bar, 2 off")
    values = [*points, *bar, *off]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError("all fields must be integers")
    if min(*bar, *off) < 0:
        raise ValueError("negative bar or off")
    for side, sign in ((0, 1), (1, -1)):
        total = sum(max(sign * p, 0) for p in points) + bar[side] + off[side]
        if total != 15:
            raise ValueError(f"side {side} has {total} checkers, not 15")
    return points, bar, off


def _plies(req: dict[str, Any], default: int) -> int:
    plies = req.get("plies", default)
    if not isinstance(plies, int) or isinstance(plies, bool) or not 0 <= plies <= 2:
        raise ValueError("plies is 0, 1 or 2")
    return plies


def best_position(req: dict[str, Any], default_plies: int) -> list[int] | None:
    """The position after gnubg's chosen play, or None for a roll that cannot be played."""
    points, bar, off = _position(req)
    dice = req["dice"]
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError("dice are two integers 1..6")
    mover, opponent = sides(points, bar)
    if not gnubg_nn.moves([opponent, mover], dice[0], dice[1]):
        return None
    _, key = gnubg_nn.best_move([opponent, mover], dice[0], dice[1], n=_plies(req, default_plies), b=1)
    # The key best_move returns holds the mover's row first (moves() keys: the opponent's).
    after_mover, after_opponent = gnubg_nn.board_from_position_key(key)
    on_board = sum(mover)
    return canonical(after_mover, after_opponent, off[0] + on_board - sum(after_mover), off[1])


def answer(req: dict[str, Any], default_plies: int) -> dict[str, Any]:
    op = req.get("op", "move")
    if op == "move":
        return {"position": best_position(req, default_plies)}
    points, bar, _ = _position(req)
    mover, opponent = sides(points, bar)
    if op == "pubeval":
        return {"score": float(gnubg_nn.pub_eval_score([mover, opponent]))}
    if op == "probabilities":
        probs = gnubg_nn.probabilities([opponent, mover], _plies(req, default_plies))
        return {"probabilities": [float(p) for p in probs]}
    raise ValueError(f"unknown op {op!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=0, choices=(0, 1, 2), help="search depth (default 0)")
    args = parser.parse_args(argv)
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line), args.plies)
        except (ValueError, KeyError, TypeError) as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        write(json.dumps(reply, separators=(",", ":")) + "\n")
        flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
