"""``whole_play``: a ``move`` action's steps (without hits) name exactly one legal sequence, or are refused."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import Game, MatchContext, Phase
from nardy.server.services.table_state import ActionError, whole_play

VARIANTS = ["backgammon", "georgian", "dave", "long-traditional", "long-tournament", "long-bolshie"]


def _bare(sequence) -> list[dict[str, int]]:
    return [{"source": s.source, "target": s.target, "die": s.die} for s in sequence]


def _game_in_play(variant: str, seed: int) -> Game:
    """A game some random turns in, waiting for its mover's play."""
    pick = random.Random(seed)
    game = Game.new(variant, context=MatchContext(length=5))
    while game.phase is Phase.OPENING:
        game = game.opening_roll((pick.randint(1, 6), pick.randint(1, 6)))
    for _ in range(pick.randint(0, 30)):
        if game.phase is Phase.ROLLING:
            game = game.roll(game.turn, (pick.randint(1, 6), pick.randint(1, 6)))
        if game.phase is not Phase.MOVING:
            break
        game = game.move(game.turn, pick.choice(game.position.legal_sequences(game.dice)))
    while game.phase is Phase.ROLLING:
        game = game.roll(game.turn, (pick.randint(1, 6), pick.randint(1, 6)))
    return game


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 10**6))
def test_every_legal_sequence_is_found_with_its_hits(variant: str, seed: int) -> None:
    game = _game_in_play(variant, seed)
    if game.phase is not Phase.MOVING:
        return
    assert game.dice is not None
    for sequence in game.position.legal_sequences(game.dice):
        assert whole_play(game, _bare(sequence)) == sequence


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 10**6), st.data())
def test_a_prefix_an_extra_step_or_a_changed_step_is_refused(variant: str, seed: int, data: st.DataObject) -> None:
    game = _game_in_play(variant, seed)
    if game.phase is not Phase.MOVING:
        return
    assert game.dice is not None
    legal = {tuple(map(tuple, (d.values() for d in _bare(s)))) for s in game.position.legal_sequences(game.dice)}
    sequence = _bare(data.draw(st.sampled_from(game.position.legal_sequences(game.dice))))
    wrong = [
        sequence[:-1],
        [*sequence, sequence[-1]],
        [*sequence[:-1], {**sequence[-1], "target": (sequence[-1]["target"] + 1) % 26}],
        [*sequence[:-1], {**sequence[-1], "die": sequence[-1]["die"] % 6 + 1}],
    ]
    for steps in wrong:
        if tuple(tuple(s.values()) for s in steps) in legal:
            continue
        with pytest.raises(ActionError):
            whole_play(game, steps)
