"""Our trained bots, for long nardy (nardy.bots.neural, nardy.bots.search): legality, levels, search and strength."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bots import levels_for, make_bot
from nardy.bots.evaluator import after_play_probabilities, equity, invert, terminal_probabilities
from nardy.bots.neural import LEVELS, WEIGHTS, NeuralBot, NeuralEvaluator, default_evaluator, default_network
from nardy.bots.random_bot import RandomBot
from nardy.bots.search import ROLL_WEIGHTS, Deadline, OutOfTime, after_values, choose
from nardy.bots.training import duel
from nardy.rules import DICE_ROLLS, VARIANTS, Position, find_variant
from tests.bots.bot_positions import game_positions, random_position


LONG = [name for name in VARIANTS if name.startswith("long-")]


@pytest.mark.parametrize("variant", [*LONG, "fevga"])
def test_shipped_weights_load_for_every_long_board_variant(variant: str) -> None:
    evaluator = default_evaluator(variant)
    network = default_network(WEIGHTS[variant])
    assert network.meta["family"] == evaluator.family.name
    assert network.meta["games"] > 0
    probabilities = evaluator.probabilities(game_positions(variant, seed=2, count=30))
    assert probabilities.shape == (30, 5)
    assert np.all((probabilities >= 0) & (probabilities <= 1))
    assert np.all(probabilities[:, 1] <= probabilities[:, 0]) and np.all(probabilities[:, 2] <= probabilities[:, 1])
    assert np.all(probabilities[:, 3] <= 1 - probabilities[:, 0] + 1e-12)
    assert np.all(probabilities[:, 4] <= probabilities[:, 3])
    assert not probabilities[:, [2, 4]].any()  # long nardy and fevga: no triple
    assert variant in network.meta["variants"]


@pytest.mark.parametrize("variant", ["backgammon", "dave", "georgian"])
def test_our_networks_leave_the_short_board_to_bgsage(variant: str) -> None:
    assert variant not in WEIGHTS
    with pytest.raises(ValueError, match="bgsage"):
        NeuralEvaluator(default_network("long"), "long").probabilities([Position.start(variant)])


@pytest.mark.parametrize("variant", ["long-traditional", "long-bolshie"])
def test_probabilities_after_a_play_are_the_turned_position_inverted(variant: str) -> None:
    evaluator = default_evaluator(variant)
    position, _ = random_position(variant, seed=4, turns=12)
    plays = position.legal_plays((6, 3)) or position.legal_plays((2, 1))
    after = [p.position for p in plays]
    fast = evaluator.probabilities_after(after)
    slow = invert(evaluator.probabilities([p.turned() for p in after]))
    assert np.allclose(fast, slow)
    rows = evaluator.probabilities_after_rows(find_variant(variant), [p.row() for p in after])
    assert np.array_equal(rows, fast)


def test_finished_games_are_rated_exactly() -> None:
    """A play that bears off the last checker is worth exactly its win kind."""
    points = [0] * 24
    points[0] = 1
    points[12] = -15  # the opponent has borne nothing off: a mars if we finish now
    position = Position(find_variant("long-traditional"), tuple(points), off=(14, 0))
    (play,) = [p for p in position.legal_plays((1, 2)) if p.position.winner_is_mover()][:1]
    evaluator = default_evaluator("long-traditional")
    probabilities = evaluator.probabilities_after([play.position])[0]
    assert probabilities.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    by_row = evaluator.probabilities_after_rows(position.variant, [play.position.row()])[0]
    assert by_row.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    exact = terminal_probabilities(play.position.turned())
    assert exact is not None and exact.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    bot = NeuralBot(evaluator)
    chosen = bot.choose_play(position, (1, 2))
    assert chosen is not None and chosen.position.winner_is_mover()


@settings(max_examples=30, deadline=None)
@given(
    variant=st.sampled_from([*LONG, "fevga"]),
    seed=st.integers(0, 10**6),
    turns=st.integers(0, 80),
    plies=st.sampled_from([0, 0, 1]),
    noise=st.sampled_from([0.0, 0.3]),
)
def test_the_chosen_play_is_always_a_legal_play(variant: str, seed: int, turns: int, plies: int, noise: float) -> None:
    position, dice = random_position(variant, seed, turns)
    bot = NeuralBot(default_evaluator(variant), plies=plies, noise=noise, seed=seed, time_budget=0.5)
    plays = position.legal_plays(dice)
    chosen = bot.choose_play(position, dice)
    if not plays:
        assert chosen is None
    else:
        assert chosen in plays


def test_zero_ply_choice_is_the_argmax_of_the_batch() -> None:
    evaluator = default_evaluator("long-tournament")
    bot = NeuralBot(evaluator)
    checked = 0
    for seed in range(40):
        position, dice = random_position("long-tournament", seed, turns=seed % 30)
        plays = position.legal_plays(dice)
        if len(plays) < 2:
            continue
        scores = equity(after_play_probabilities(evaluator, [p.position for p in plays]))
        assert bot.choose_play(position, dice) == plays[int(np.argmax(scores))]
        checked += 1
    assert checked > 20


def test_levels_differ() -> None:
    """Noise makes the weaker levels pick other plays than the noiseless bot, more so at lower levels."""
    evaluator = default_evaluator("long-traditional")
    samples = [random_position("long-traditional", seed, turns=10 + seed % 20) for seed in range(60)]
    samples = [(p, d) for p, d in samples if len(p.legal_plays(d)) > 4]
    best = NeuralBot(evaluator)
    reference = [best.choose_play(p, d) for p, d in samples]
    differences = {}
    for level in ("beginner", "intermediate"):
        bot = NeuralBot(evaluator, noise=LEVELS[level].noise, seed=1)
        differences[level] = sum(bot.choose_play(p, d) != r for (p, d), r in zip(samples, reference))
    assert differences["beginner"] > differences["intermediate"] > 0
    long_levels = levels_for("long-traditional")[1:]
    assert [LEVELS[level].plies for level in long_levels] == sorted(LEVELS[level].plies for level in long_levels)
    assert LEVELS["expert"].noise == 0.0 and LEVELS["expert"].plies == 2


def test_same_seed_same_choices() -> None:
    evaluator = default_evaluator("long-bolshie")
    samples = [random_position("long-bolshie", seed, turns=15) for seed in range(15)]
    first, second = (NeuralBot(evaluator, noise=0.3, seed=7) for _ in range(2))
    assert [first.choose_play(p, d) for p, d in samples] == [second.choose_play(p, d) for p, d in samples]


def test_one_ply_is_the_average_over_the_opponents_rolls() -> None:
    """after_values at depth 1, recomputed by hand: the opponent's best 0-ply reply to each roll, weighted."""
    evaluator = default_evaluator("long-traditional")
    position, dice = random_position("long-traditional", seed=11, turns=14)
    candidate = position.legal_plays(dice)[0].position
    expected = np.zeros(5)
    turned = candidate.turned()
    for weight, roll in zip(ROLL_WEIGHTS, DICE_ROLLS):
        replies = [p.position for p in turned.legal_plays(roll)] or [turned]
        theirs = after_play_probabilities(evaluator, replies)
        expected += weight * invert(theirs[int(np.argmax(equity(theirs)))])
    assert np.allclose(after_values(evaluator, [candidate], 1)[0], expected)
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


def test_n_ply_respects_a_tiny_time_budget() -> None:
    """With the budget spent at once, a 2-ply bot falls back to its completed 0-ply ranking."""
    evaluator = default_evaluator("long-traditional")
    ticks = itertools.count()
    bot = NeuralBot(evaluator, plies=2, time_budget=0.5, clock=lambda: float(next(ticks)))
    zero = NeuralBot(evaluator)
    for seed in range(10):
        position, dice = random_position("long-traditional", seed, turns=20)
        assert bot.choose_play(position, dice) == zero.choose_play(position, dice)
        assert bot.last_depth == 0
    import time

    real = NeuralBot(evaluator, plies=2, time_budget=0.02)
    position, dice = random_position("long-traditional", 3, turns=6)
    started = time.perf_counter()
    assert real.choose_play(position, dice) in position.legal_plays(dice)
    assert time.perf_counter() - started < 0.5


def test_deeper_search_is_used_when_time_allows() -> None:
    evaluator = default_evaluator("long-traditional")
    bot = NeuralBot(evaluator, plies=1)
    depths = set()
    for seed in range(12):
        position, dice = random_position("long-traditional", seed, turns=16)
        bot.choose_play(position, dice)
        depths.add(bot.last_depth)
    assert 1 in depths


def test_choose_requires_candidates() -> None:
    with pytest.raises(ValueError):
        choose(default_evaluator("long-traditional"), [])
    deadline = Deadline(10.0)
    deadline.check()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_make_bot_builds_every_level_of_the_variant(variant: str) -> None:
    position = Position.start(variant)
    for level in levels_for(variant):
        bot = make_bot(level, variant=variant, seed=1)
        assert bot.name == level
        if level not in ("expert", "world-class"):  # the deep levels are exercised by their own tests
            assert bot.choose_play(position, (5, 2)) in position.legal_plays((5, 2))
    assert isinstance(make_bot("random", variant=variant), RandomBot)
    with pytest.raises(ValueError, match="known levels"):
        make_bot("grandmaster", variant=variant)


def test_our_bots_never_double_in_long_nardy_which_has_no_cube() -> None:
    from nardy.rules import Game

    game = Game.new("long-traditional", first_player=0)
    bot = make_bot("expert", variant="long-traditional")
    assert not game.can_double(0) and bot.wants_to_double(game, 0) is False


@pytest.mark.slow
def test_trained_bot_beats_the_random_bot() -> None:
    """0-ply and no noise against uniformly random plays: at least 70% of 60 long-nardy games."""
    bot = NeuralBot(default_evaluator("long-traditional"))
    result = duel(bot, RandomBot(seed=3), "long-traditional", 60, seed=3)
    assert result.win_rate >= 0.7, result


def test_neural_evaluator_checks_the_input_size() -> None:
    from nardy.bots.network import Network

    with pytest.raises(ValueError, match="inputs"):
        NeuralEvaluator(Network.initial(inputs=3, hidden=4, seed=1, family="long"), "long")


def test_a_deadline_stops_the_rating_of_many_replies_between_chunks() -> None:
    """The expert's 1 s budget was checked only while replies were generated: one batch of 35,000 overran it."""
    evaluator = default_evaluator("long-traditional")
    position, dice = random_position("long-traditional", seed=4, turns=20)
    candidates = [play.position for play in position.legal_plays(dice)[:2]]
    assert len(candidates) == 2

    def counting(seconds: float) -> tuple[Deadline, list[int]]:
        """A deadline whose clock advances one second at every look: it expires after ``seconds`` checks."""
        looks = [0]

        def clock() -> float:
            looks[0] += 1
            return float(looks[0] - 1)

        return Deadline(seconds, clock=clock), looks

    lenient, looks = counting(1e9)
    deep = after_values(evaluator, candidates, 2, lenient)
    assert np.allclose(deep, after_values(evaluator, candidates, 2))  # chunked or not, the same ratings
    checks = looks[0] - 1
    generated = len(candidates) * len(DICE_ROLLS) * (1 + len(DICE_ROLLS))  # a check per roll generated, both plies
    assert checks - generated >= 2  # the last checks guard the chunks of RATING_CHUNK of the second ply's replies
    after_values(evaluator, candidates, 2, counting(checks)[0])
    with pytest.raises(OutOfTime):  # expiring after the replies were all generated, before the last chunk
        after_values(evaluator, candidates, 2, counting(checks - 1)[0])
