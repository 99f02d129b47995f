"""benchmarks.strength's players: ``sage:<level>`` is bgsage whatever the variant's engine, ``level:<level>`` the
bot a table of that level gets, ``ours:...@FILE`` a single network or a contact-and-race pair from a weights file,
each encoded as it was trained."""

from __future__ import annotations

from pathlib import Path

from benchmarks.strength import make_player
from nardy.bots.base import CubeByBot
from nardy.bots.encoding import LONG, LONG_FEATURES
from nardy.bots.network import Network
from nardy.bots.neural import NeuralBot, NeuralEvaluator
from nardy.bots.phased import PhasedNetwork
from nardy.bots.race import RaceEvaluator
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



def test_ours_plays_a_pair_file_on_its_own_inputs(tmp_path: Path) -> None:
    old = Network.initial(inputs=LONG.inputs, hidden=4, seed=1, family="long")
    old.save(tmp_path / "old.npz")
    assert LONG_FEATURES.selector is not None
    PhasedNetwork.warm_start(old, inputs=LONG_FEATURES.inputs, selector=LONG_FEATURES.selector,
                             family=LONG_FEATURES.name).save(tmp_path / "new.npz")
    new = make_player(f"ours:0+race@{tmp_path / 'new.npz'}", "long-bolshie")
    single = make_player(f"ours:1@{tmp_path / 'old.npz'}", "long-bolshie")
    assert isinstance(new, NeuralBot) and isinstance(single, NeuralBot)
    assert isinstance(new.evaluator, RaceEvaluator) and isinstance(new.evaluator.inner, NeuralEvaluator)
    assert new.evaluator.inner.family is LONG_FEATURES
    assert isinstance(single.evaluator, NeuralEvaluator) and single.evaluator.family is LONG
    assert new.name.endswith("[new.npz]") and single.name == "ours 1-ply [old.npz]"
    start = Position.start("long-bolshie")
    assert new.choose_play(start, (6, 5)) in start.legal_plays((6, 5))
