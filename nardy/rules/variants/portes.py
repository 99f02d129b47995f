"""Portes, the first game of Greek tavli (docs/rules.md, "Portes").

Backgammon's board, start, movement and hitting; as in every game of tavli,
the opening winner rolls again for the first turn and the winner of a game
starts the next, a gammon counts 2 and there is "no triple game", and no
doubling cube is used. Matches go to any length; there is no money play.
"""

from dataclasses import replace

from nardy.rules.variant import WinKind
from nardy.rules.variants.backgammon import BACKGAMMON

PORTES = replace(
    BACKGAMMON,
    name="portes",
    title="Portes",
    group="greek",
    cube_allowed=False,
    match_lengths=None,
    money_play=False,
    previous_winner_starts=True,
    kinds=(WinKind.SINGLE, WinKind.GAMMON, WinKind.GAMMON),
)
