"""Hypergammon and nackgammon: backgammon's rules from another start (docs/rules.md).

Hypergammon: "each player begins with one piece on each of the three most
distant points of the board (the 22-point, the 23-point and the 24-point)"
(Wikipedia, "Hypergammon"), three checkers a side. Nackgammon: two checkers
on the 24 and two on the 23, four on the 13, three on the 8 and four on the
6 (GNU Backgammon's "nackgammon" variation; dailygammon's help). Everything
else, the cube, matches and money play included, is backgammon's.
"""

from dataclasses import replace

from nardy.rules.variants.backgammon import BACKGAMMON

HYPERGAMMON = replace(
    BACKGAMMON,
    name="hypergammon",
    title="Hypergammon",
    family="hypergammon",
    start_layout=((24, 1), (23, 1), (22, 1)),
)

NACKGAMMON = replace(
    BACKGAMMON,
    name="nackgammon",
    title="Nackgammon",
    family="nackgammon",
    start_layout=((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)),
)
