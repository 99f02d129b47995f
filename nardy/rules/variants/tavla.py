"""Tavla, Turkish backgammon (docs/rules.md, "Tavla").

Backgammon's board, start and hitting, with the differences Wikipedia's
"Tavla" lists: the winner of the opening roll rolls again for the first turn,
"hit-and-run does not apply in a player's home board" (the Georgian hook:
a checker that hits in its home stays there for the rest of the turn), a
gammon (*mars*) counts 2, there is no backgammon and no doubling cube.
Matches go to any length; there is no money play.
"""

from dataclasses import replace

from nardy.rules.variant import WinKind
from nardy.rules.variants.backgammon import BACKGAMMON

TAVLA = replace(
    BACKGAMMON,
    name="tavla",
    title="Tavla",
    family="tavla",
    group="turkish",
    hit_home_stay=True,
    cube_allowed=False,
    match_lengths=None,
    money_play=False,
    previous_winner_starts=True,
    kinds=(WinKind.SINGLE, WinKind.MARS, WinKind.MARS),
)
