"""GNU Backgammon legal-move oracle, run as a separate process.

What: a line-oriented JSON filter that asks GNU Backgammon's own move
generator (through the PyPI package ``gnubg-nn``, module ``gnubg_nn``) for
every distinct position reachable by a legal play of a roll. Our move
generator is differentially tested, and benchmarked, against it.

Why a separate process: GNU Backgammon and ``gnubg-nn`` are GPL-3.0. The
``nardy`` package must never import them; tests talk to this script only
through ``subprocess`` pipes. If ``gnubg_nn`` is missing the script exits
with status 3 and a message on stderr, so callers can skip.

Install and run (any Python 3.11 environment, e.g. a throwaway venv)::

    pip install 'gnubg-nn==1.1.0a11'
    python tests/oracles/gnubg_movegen.py

Protocol: one JSON object per stdin line,
``{"points": [24 ints], "bar": [a, b], "off": [c, d], "dice": [d1, d2]}``;
one JSON line per request on stdout (flushed):
``{"positions": [[28 ints], ...]}`` with each distinct resulting position
as ``points(24) + bar(2) + off(2)``, still from the mover's point of view
(sides are not swapped). An empty list means the roll cannot be played.
A malformed request gets ``{"error": "..."}`` and the process continues.

Convention: ``points[i]`` is point i+1 for the side to move, positive for
its checkers, negative for the opponent's. The mover travels 24 -> 1 and
bears off past 1; the opponent travels 1 -> 24. ``bar``/``off`` are
[mover, opponent]. gnubg's board is ``board[2][25]``: ``board[1]`` is the
side on roll, ``board[0]`` the opponent, index i = point i+1 from that
side's own perspective, index 24 = its bar; borne-off checkers are not
stored, so ``off`` is recomputed from the checkers that left the board.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:
    import gnubg_nn  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - depends on the environment
    sys.stderr.write("gnubg_nn not installed: pip install 'gnubg-nn==1.1.0a11'\n")
    sys.exit(3)

Board = list[list[int]]


def to_gnubg(points: list[int], bar: list[int]) -> Board:
    """Canonical mover-perspective position -> gnubg ``[opponent, mover]``."""
    mover = [max(p, 0) for p in points] + [bar[0]]
    opp = [max(-points[23 - j], 0) for j in range(24)] + [bar[1]]
    return [opp, mover]


def from_gnubg(
    opp: tuple[int, ...], mover: tuple[int, ...], mover_off: int, opp_off: int
) -> list[int]:
    """gnubg ``(opponent, mover)`` board -> canonical 28-int list."""
    points = [mover[i] - opp[23 - i] for i in range(24)]
    return points + [mover[24], opp[24], mover_off, opp_off]


def _validate(req: dict[str, Any]) -> tuple[list[int], list[int], list[int], int, int]:
    points, bar, off, dice = req["points"], req["bar"], req["off"], req["dice"]
    if len(points) != 24 or len(bar) != 2 or len(off) != 2 or len(dice) != 2:
        raise ValueError("need 24 points, 2 bar, 2 off, 2 dice")
    ints = [*points, *bar, *off, *dice]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in ints):
        raise ValueError("all fields must be integers")
    if min(*bar, *off) < 0 or not all(1 <= d <= 6 for d in dice):
        raise ValueError("negative bar/off or die outside 1..6")
    for side, sign in ((0, 1), (1, -1)):
        total = sum(max(sign * p, 0) for p in points) + bar[side] + off[side]
        if total > 15:
            raise ValueError(f"side {side} has {total} > 15 checkers")
    return points, bar, off, dice[0], dice[1]


def legal_positions(
    points: list[int], bar: list[int], off: list[int], d1: int, d2: int
) -> list[list[int]]:
    """All distinct positions after a legal play of (d1, d2); [] for a pass."""
    board = to_gnubg(points, bar)
    on_board = sum(board[1])  # mover's checkers on points + bar
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    for key in gnubg_nn.moves(board, d1, d2):
        opp, mover = gnubg_nn.board_from_position_key(key)
        pos = from_gnubg(opp, mover, off[0] + on_board - sum(mover), off[1])
        t = tuple(pos)
        if t not in seen:
            seen.add(t)
            out.append(pos)
    return out  # gnubg yields no moves at all for a pass


def main() -> int:
    write, flush = sys.stdout.write, sys.stdout.flush
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            reply: dict[str, Any] = {"positions": legal_positions(*_validate(req))}
        except (ValueError, KeyError, TypeError) as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        write(json.dumps(reply, separators=(",", ":")) + "\n")
        flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
