"""Georgian short nardy (seed 002): backgammon without the cube, oin/mars/koks,
and "a checker that hits in its own home stays there" unless the die cannot be
played otherwise, judged per die (docs/rules.md §4 and its 2026-12-02 decision)."""

from nardy.rules.variant import BACKGAMMON_START, ShortTopology, Variant, WinKind

GEORGIAN = Variant(
    name="georgian",
    title="Georgian nardy",
    family="georgian",
    topology=ShortTopology(),
    group="short",
    start_layout=BACKGAMMON_START,
    hit_home_stay=True,
    match_lengths=(1, 3, 5, 7),
    kinds=(WinKind.OIN, WinKind.MARS, WinKind.KOKS),
)
