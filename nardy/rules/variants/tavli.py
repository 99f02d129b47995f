"""Tavli, the Greek match of three games: portes, plakoto, fevga, and round again (docs/rules.md §11).

"Tavli is a compendium game for two players which comprises three different
variants played in succession: Portes, Plakoto and Fevga. These are played in
a cycle until one player reaches the target score" (Wikipedia, "Tavli"). A
match to 3, 5 or 7 points ("These games are played one after another, in
matches of three, five, or seven points", bkgm.com's Tavli article) whose
game n is played by ``games[(n - 1) % 3]``, each by its own rules and
scoring: a single 1, a gammon 2, plakoto's mother rule, no triple, no cube.
The winner of a game starts the next ("After the first game, the winner of
the previous game goes first", ibid.), as each of the three games says.

The match's own movement data are its first game's (portes): what asks
about "a game of tavli" without a game number gets the first game's rules.
"""

from dataclasses import replace

from nardy.rules.variants.fevga import FEVGA
from nardy.rules.variants.greek import PLAKOTO
from nardy.rules.variants.portes import PORTES

TAVLI = replace(
    PORTES,
    name="tavli",
    title="Tavli",
    family="tavli",
    match_lengths=(3, 5, 7),
    games=(PORTES, PLAKOTO, FEVGA),
)
