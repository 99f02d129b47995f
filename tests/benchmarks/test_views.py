"""The view benchmark's corpus: a seeded game folded by the server's own code, the same on every run."""

from __future__ import annotations

import pytest

from benchmarks.views import VARIANTS, game_states


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_corpus_is_a_game_played_forward_the_same_every_time(variant: str) -> None:
    states = game_states(variant, 12, seed="test")
    assert len(states) == 12
    versions = [state.version for state in states]
    assert versions == sorted(set(versions)), "each state one event after the last"
    assert [s.game.turns_played for s in states if s.game] == [s.game.turns_played for s in game_states(variant, 12, seed="test") if s.game]
    assert states[-1].game is not None and states[-1].game.turns_played > 0
