"""Tesauro's pubeval: the public linear backgammon evaluator, and a bot that plays by it.

Source: G. Tesauro, ``pubeval.c`` (IBM Research, 1993), "provided as a public
service to the backgammon programming community" as a benchmark opponent;
the weights were published with it as the files ``WT.race`` and ``WT.cntc``.
The algorithm is ported from that C code, and the weights below are its
``wr[]`` and ``wc[]``, as reproduced with the code in the public copies read
for this port (github.com/weekend37/Backgammon and
github.com/markusfreyr/Backgammon, ``pubeval.c``, which agree digit for digit).
The port was checked against GNU Backgammon's own pubeval
(``gnubg_nn.pub_eval_score``, run out of process): the scores agree to 1e-4
on every position of a random game corpus (tests/bots/test_pubeval.py).

Algorithm. The board is Tesauro's ``pos[0..27]`` seen by the player who has
just moved, before the turn passes: ``pos[1..24]`` the points (own checkers
positive, moving 24 → 1; the opponent's negative), ``pos[25]`` own bar,
``pos[0]`` minus the opponent's bar, ``pos[26]`` own checkers off, ``pos[27]``
minus the opponent's off. That is exactly :class:`~nardy.rules.Position`'s
layout, so no flipping is needed. The 122 inputs: for board location
``j = 1..24`` (location j is point ``25 - j``), with ``n = pos[25 - j]``, five
inputs ``x[5(j-1) .. 5(j-1)+4]`` = [n == -1, n == 1, n >= 2, n == 3,
(n - 3)/2 if n >= 4]; then ``x[120] = -pos[0]/2`` (the opponent's checkers on
the bar) and ``x[121] = pos[26]/15`` (own checkers off). Own checkers on the
bar and anybody's other checkers off are not inputs. The score is ``w · x``
with the race weights when the position *before* the move has no contact,
the contact weights otherwise; bearing off the last checker scores 99999999.
The play with the highest score is chosen.

>>> from nardy.rules import Position
>>> start = Position.start("backgammon")
>>> play = PubevalBot().choose_play(start, (3, 1))
>>> play.position.points[4:8] if play else None   # 8/5 6/5: points 5, 6, 7, 8
(2, 4, 0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from nardy.rules import MAX_CHECKERS, NUM_POINTS, Game, Play, Position

RACE = True
CONTACT = False

RACE_WEIGHTS: Final[tuple[float, ...]] = (
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471,  # point 24
    0.00000, -1.40375, -1.05121, 0.07217, -0.01351,  # point 23
    0.00000, -1.29506, -2.16183, 0.13246, -1.03508,  # point 22
    0.00000, -2.29847, -2.34631, 0.17253, 0.08302,  # point 21
    0.00000, -1.27266, -2.87401, -0.07456, -0.34240,  # point 20
    0.00000, -1.34640, -2.46556, -0.13022, -0.01591,  # point 19
    0.00000, 0.27448, 0.60015, 0.48302, 0.25236,  # point 18
    0.00000, 0.39521, 0.68178, 0.05281, 0.09266,  # point 17
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685,  # point 16
    0.00000, 0.17405, 0.00430, 0.74427, 0.00576,  # point 15
    0.00000, 0.12392, 0.31202, -0.91035, -0.16270,  # point 14
    0.00000, 0.01418, -0.10839, -0.02781, -0.88035,  # point 13
    0.00000, 1.07274, 2.00366, 1.16242, 0.22520,  # point 12
    0.00000, 0.85631, 1.06349, 1.49549, 0.18966,  # point 11
    0.00000, 0.37183, -0.50352, -0.14818, 0.12039,  # point 10
    0.00000, 0.13681, 0.13978, 1.11245, -0.12707,  # point 9
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728,  # point 8
    0.00000, -0.13597, -0.19412, -0.09308, -1.26062,  # point 7
    0.00000, 3.05454, 5.16874, 1.50680, 5.35000,  # point 6
    0.00000, 2.19605, 3.85390, 0.88296, 2.30052,  # point 5
    0.00000, 0.92321, 1.08744, -0.11696, -0.78560,  # point 4
    0.00000, -0.09795, -0.83050, -1.09167, -4.94251,  # point 3
    0.00000, -1.00316, -3.66465, -2.56906, -9.67677,  # point 2
    0.00000, -2.77982, -7.26713, -3.40177, -12.32252,  # point 1
    0.00000, 3.42040,  # opponent's bar, own checkers off
)
"""Tesauro's ``wr[]``, used when the position before the move has no contact."""

CONTACT_WEIGHTS: Final[tuple[float, ...]] = (
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398,  # point 24
    -0.16092, -1.11725, -1.06654, -0.92830, -1.99558,  # point 23
    -1.10388, -0.80802, 0.09856, -0.62086, -1.27999,  # point 22
    -0.59220, -0.73667, 0.89032, -0.38933, -1.59847,  # point 21
    -1.50197, -0.60966, 1.56166, -0.47389, -1.80390,  # point 20
    -0.83425, -0.97741, -1.41371, 0.24500, 0.10970,  # point 19
    -1.36476, -1.05572, 1.15420, 0.11069, -0.38319,  # point 18
    -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,  # point 17
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786,  # point 16
    -1.18435, -0.43363, 1.06169, -0.21329, 0.04798,  # point 15
    -0.94373, -0.22982, 1.22737, -0.13099, -0.06295,  # point 14
    -0.75882, -0.13658, 1.78389, 0.30416, 0.36797,  # point 13
    -0.69851, 0.13003, 1.23070, 0.40868, -0.21081,  # point 12
    -0.64073, 0.31061, 1.59554, 0.65718, 0.25429,  # point 11
    -0.80789, 0.08240, 1.78964, 0.54304, 0.41174,  # point 10
    -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,  # point 9
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777,  # point 8
    -0.83711, -0.33248, 2.64983, 0.52698, 0.82132,  # point 7
    -0.58897, -1.18223, 3.35809, 0.62017, 0.57353,  # point 6
    -0.07276, -0.36214, 4.37655, 0.45481, 0.21746,  # point 5
    0.10504, -0.61977, 3.54001, 0.04612, -0.18108,  # point 4
    0.63211, -0.87046, 2.47673, -0.48016, -1.27157,  # point 3
    0.86505, -1.11342, 1.24612, -0.82385, -2.77082,  # point 2
    1.23606, -1.59529, 0.10438, -1.30206, -4.11520,  # point 1
    5.62596, -2.75800,  # opponent's bar, own checkers off
)
"""Tesauro's ``wc[]``, used otherwise."""

INPUTS: Final = 122
WON: Final = 99999999.0
"""pubeval's score for a play that bears off the last checker."""


def tesauro_board(position: Position) -> list[int]:
    """Tesauro's ``pos[0..27]`` for the side to move of ``position`` (see the module docstring)."""
    return [-position.bar[1], *position.points, position.bar[0], position.off[0], -position.off[1]]


def pubeval_inputs(pos: Sequence[int]) -> list[float]:
    """The 122 inputs of Tesauro's ``setx`` for a 28-entry board."""
    if len(pos) != 28:
        raise ValueError(f"Tesauro's board has 28 entries, got {len(pos)}")
    x = [0.0] * INPUTS
    for j in range(1, NUM_POINTS + 1):
        n = pos[25 - j]
        base = 5 * (j - 1)
        if n == -1:
            x[base] = 1.0
        if n == 1:
            x[base + 1] = 1.0
        if n >= 2:
            x[base + 2] = 1.0
        if n == 3:
            x[base + 3] = 1.0
        if n >= 4:
            x[base + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    return x


def _point_table(weights: Sequence[float]) -> tuple[tuple[float, ...], ...]:
    """For each point 1..24 (index 0..23) and count -15..15: that point's share of ``w · x``."""
    table = []
    for point in range(1, NUM_POINTS + 1):
        base = 5 * (NUM_POINTS - point)  # location j = 25 - point
        shares = []
        for n in range(-MAX_CHECKERS, MAX_CHECKERS + 1):
            share = 0.0
            if n == -1:
                share += weights[base]
            if n == 1:
                share += weights[base + 1]
            if n >= 2:
                share += weights[base + 2]
            if n == 3:
                share += weights[base + 3]
            if n >= 4:
                share += weights[base + 4] * (n - 3) / 2.0
            shares.append(share)
        table.append(tuple(shares))
    return tuple(table)


_TABLES: Final = {RACE: _point_table(RACE_WEIGHTS), CONTACT: _point_table(CONTACT_WEIGHTS)}
_WEIGHTS: Final = {RACE: RACE_WEIGHTS, CONTACT: CONTACT_WEIGHTS}


def pubeval(position: Position, *, race: bool) -> float:
    """Tesauro's score of ``position`` for its side to move, which has just played (higher is better)."""
    if position.winner_is_mover():
        return WON
    table = _TABLES[race]
    weights = _WEIGHTS[race]
    score = weights[120] * (position.bar[1] / 2.0) + weights[121] * (position.off[0] / 15.0)
    for index, count in enumerate(position.points):
        if count:
            score += table[index][count + MAX_CHECKERS]
    return score


def is_race(position: Position) -> bool:
    """No contact left: every checker of the side to move is past every opposing checker (short board)."""
    if position.bar[0] or position.bar[1]:
        return False
    own = [i for i, c in enumerate(position.points, start=1) if c > 0]
    theirs = [i for i, c in enumerate(position.points, start=1) if c < 0]
    if not own or not theirs:
        return True
    return max(own) < min(theirs)


class PubevalBot:
    """Plays the legal play pubeval rates highest; never doubles, always takes (a cubeless benchmark)."""

    name = "pubeval"

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        if not position.variant.has_bar:
            raise ValueError(f"pubeval plays the backgammon board, not {position.variant.name}")
        plays = position.legal_plays(dice)
        if not plays:
            return None
        race = is_race(position)
        return max(plays, key=lambda play: pubeval(play.position, race=race))

    def wants_to_double(self, game: Game, player: int) -> bool:
        return False

    def accepts_double(self, game: Game, player: int) -> bool:
        return True


__all__ = [
    "CONTACT_WEIGHTS",
    "INPUTS",
    "PubevalBot",
    "RACE_WEIGHTS",
    "WON",
    "is_race",
    "pubeval",
    "pubeval_inputs",
    "tesauro_board",
]
