"""Long nardy in three regulations (docs/rules.md §6).

traditional and tournament (seed 004): one checker from the head per turn,
except two on a player's first roll of 6-6, 4-4 or 3-3; a six-point block is
banned unless an opposing checker is already past it, checked at the end of
the turn (traditional) or after every single move (tournament).
bolshie (seed 001 §1.2, §1.11, §1.12): one checker from the head, no exception;
a six-point block is banned while an opposing checker is behind it («заняты все
шесть лунок, следующих за его шашкой»), checked at the end of the turn.
004's platform makes moves final («Ходы окончательны»), so its two regulations
default to it; 001 is a tournament regulation over a real board and does not.
"""

from dataclasses import replace

from nardy.rules.variant import LONG_START, LongTopology, Variant, WinKind

_LONG_KINDS = (WinKind.OIN, WinKind.MARS, WinKind.MARS)

LONG_TRADITIONAL = Variant(
    name="long-traditional",
    title="Long nardy (traditional)",
    family="long",
    topology=LongTopology(),
    group="long",
    start_layout=LONG_START,
    hitting=False,
    head_limit=1,
    head_exception_doubles=frozenset({3, 4, 6}),
    block_rule="ahead",
    money_play=True,
    previous_winner_starts=True,
    moves_final=True,
    kinds=_LONG_KINDS,
)

LONG_TOURNAMENT = replace(
    LONG_TRADITIONAL,
    name="long-tournament",
    title="Long nardy (tournament)",
    block_each_step=True,
)

LONG_BOLSHIE = replace(
    LONG_TRADITIONAL,
    name="long-bolshie",
    title="Long nardy (Bolshie nardy regulation)",
    head_exception_doubles=frozenset(),
    block_rule="behind",
    moves_final=False,
)
