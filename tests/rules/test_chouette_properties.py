"""Invariants of whole chouette sessions played with random legal decisions (hypothesis).

Whatever the players decide: the points of every game sum to zero (the box
pays or receives exactly what the members receive or pay), the running
scores are the sums of the games, nobody appears twice, and the rotation of
000 decides the next lineup from the captain's own result.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules.chouette import BOX_SIDE, Chouette, ChouetteGame, ChouettePhase

PLAYERS = (11, 12, 13, 14, 15)


def dice(pick: random.Random) -> tuple[int, int]:
    return pick.randint(1, 6), pick.randint(1, 6)


def decide(game: ChouetteGame, pick: random.Random) -> ChouetteGame:
    """One random legal decision of whoever the game waits for."""
    phase = game.phase
    if phase is ChouettePhase.OPENING:
        return game.opening_roll(dice(pick))
    if phase is ChouettePhase.TEAM_VOTE:
        return game.vote(pick.choice(game.awaiting()), pick.random() < 0.7)
    if phase is ChouettePhase.TEAM_DOUBLED:
        takes = [m for m in game.in_play if pick.random() < 0.5]
        return game.answer_team_double(game.lineup.box, takes)
    if phase is ChouettePhase.BOX_DOUBLED:
        return game.answer_box_double(pick.choice(game.awaiting()), pick.random() < 0.6)
    actor = game.awaiting()[0]
    if phase is ChouettePhase.ROLLING:
        if game.double_refusal(actor) is None and pick.random() < 0.1:
            return game.box_double(actor) if game.turn_side == BOX_SIDE else game.propose_double(actor)
        if pick.random() < 0.02:
            return game.resign(pick.choice((game.lineup.box, *game.in_play)))
        return game.roll(actor, dice(pick))
    return game.move(actor, pick.choice(game.legal_plays()).steps)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, len(PLAYERS)), st.integers(0, 2**32))
def test_random_sessions_keep_the_books_balanced(count: int, seed: int) -> None:
    pick = random.Random(seed)
    session = Chouette.new()
    for player in PLAYERS[:count]:
        session = session.sit(player)
    session = session.begin()
    while session.formation is not None and not session.formation.done:
        session = session.formation_rolled({p: pick.randint(1, 6) for p in session.formation.to_roll})
    for _ in range(2):
        assert session.game is not None and session.lineup is not None
        before = session.lineup
        game = session.game
        for _ in range(1000):
            if game.result() is not None:
                break
            game = decide(game, pick)
        result = game.result()
        assert result is not None, "a game of random decisions did not end in 1,000 decisions"
        assert sum(points for _, points in result.points) == 0
        assert {p for p, _ in result.points} == set(before.players)
        session = session.update(game)
        assert session.lineup == before.rotated(result.team_won)
        assert sorted(session.players) == sorted(PLAYERS[:count])
        assert sum(points for _, points in session.scores) == 0
    for player in PLAYERS[:count]:
        assert session.score_of(player) == sum(dict(r.points).get(player, 0) for r in session.results)
