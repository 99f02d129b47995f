"""benchmarks.strength's players: ``sage:<level>`` is bgsage whatever the variant's engine, ``level:<level>`` the
bot a table of that level gets."""

from __future__ import annotations

from benchmarks.strength import make_player
from nardy.bots.base import CubeByBot
from nardy.bots.neural import NeuralBot
from nardy.bots.sage import SAGE_LEVELS, SageBot
from nardy.rules import Position


def test_sage_names_bgsage_where_a_network_is_the_engine() -> None:
    sage = make_player("sage:expert", "hypergammon")
    assert isinstance(sage, SageBot) and sage.level == SAGE_LEVELS["expert"]
    table = make_player("level:expert", "hypergammon")
    assert isinstance(table, CubeByBot) and isinstance(table.checkers, NeuralBot)
    start = Position.start("hypergammon")
    chosen = sage.choose_play(start, (6, 5))
    assert chosen is not None and chosen in start.legal_plays((6, 5))
