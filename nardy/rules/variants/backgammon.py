"""Classic backgammon (seed 000) and backgammon with *dave* (seed 003)."""

from dataclasses import replace

from nardy.rules.variant import BACKGAMMON_START, ShortTopology, Variant, WinKind

ODD_LENGTHS_TO_21 = tuple(range(1, 22, 2))

BACKGAMMON = Variant(
    name="backgammon",
    title="Backgammon",
    family="backgammon",
    topology=ShortTopology(),
    group="short",
    start_layout=BACKGAMMON_START,
    cube_allowed=True,
    match_lengths=ODD_LENGTHS_TO_21,
    money_play=True,
    resignation_offers=True,
    resignation_default=WinKind.SINGLE,
)

# 003: "The match can be defined as a 3, 5, ... 21 points match"; the three
# cube restrictions and oin/mars/koks scoring multiplied by the cube. 003 says
# nothing of resigning, so dave keeps backgammon's offers, of oin, mars or koks;
# a resignation naming none is scored from the position, as dave's always was.
DAVE = replace(
    BACKGAMMON,
    name="dave",
    title="Backgammon with dave",
    cube_required=True,
    dave_restrictions=True,
    match_lengths=ODD_LENGTHS_TO_21[1:],
    money_play=False,
    resignation_default=None,
    kinds=(WinKind.OIN, WinKind.MARS, WinKind.KOKS),
)
