"""The fair-play statistic on synthetic figures: robust reference, both z-scores, the threshold, never a verdict
on too few games or too small a reference (docs/fair-play.md)."""

from __future__ import annotations

import random

from nardy.bots.fair_play import (
    MAX_GAMES,
    MIN_GAMES,
    MIN_PR_SPREAD,
    MIN_REFERENCE,
    RECENT_GAMES,
    THRESHOLD,
    WINDOW_MOVES,
    AccountFigures,
    GameFigures,
    account_figures,
    game_figures,
    judge,
    reference_of,
    window,
)


def _account(pr: float, match_rate: float, *, games: int = 12, moves: int = 300) -> AccountFigures:
    counted = moves
    return AccountFigures(games=games, counted=counted, total_loss=pr * counted / 500.0, unforced_moves=moves,
                          best_moves=round(match_rate * moves))


def _peers(count: int, seed: int = 1) -> list[AccountFigures]:
    rng = random.Random(seed)
    return [_account(rng.gauss(9.0, 2.0), rng.gauss(0.55, 0.04)) for _ in range(count)]


def test_figures_count_only_counted_decisions_and_unforced_plays_that_lost_nothing() -> None:
    decision = {"player": 0, "kind": "move", "counted": True, "equity_loss": 0.0}
    result = {"games": [{"decisions": [
        decision, {**decision, "equity_loss": 0.05}, {**decision, "counted": False, "equity_loss": 0.3},
        {**decision, "kind": "cube", "equity_loss": 0.1}, {**decision, "player": 1, "equity_loss": 0.2},
    ]}]}
    assert game_figures(result, 0) == GameFigures(counted=3, total_loss=0.15000000000000002, unforced_moves=2,
                                                  best_moves=1)
    summed = account_figures([game_figures(result, 0)] * 2)
    assert summed.games == 2 and summed.unforced_moves == 4 and summed.match_rate == 0.5
    assert round(summed.pr, 6) == 25.0  # 500 × 0.3 / 6


def test_an_engine_among_people_of_its_rating_is_flagged_and_none_of_them_is() -> None:
    peers = _peers(60)
    engine = _account(1.5, 0.9)
    reference = reference_of([*peers, engine])
    assert reference is not None and 8.0 < reference.pr_median < 10.0
    verdict = judge(engine, reference)
    assert verdict is not None and verdict.flagged and verdict.statistic >= THRESHOLD
    assert verdict.statistic == min(verdict.z_pr, verdict.z_match)
    assert not any(judge(peer, reference).flagged for peer in peers)  # type: ignore[union-attr]
    evidence = verdict.evidence()
    assert evidence["games"] == 12 and evidence["reference"]["accounts"] == 61


def test_both_figures_must_be_far_out() -> None:
    reference = reference_of(_peers(40))
    assert reference is not None
    careful_but_unlike_the_engine = judge(_account(1.5, 0.56), reference)
    lucky_copier_with_blunders = judge(_account(9.0, 0.95), reference)
    assert careful_but_unlike_the_engine is not None and not careful_but_unlike_the_engine.flagged
    assert lucky_copier_with_blunders is not None and not lucky_copier_with_blunders.flagged


def test_a_few_engines_in_the_band_move_neither_centre_nor_spread_much() -> None:
    peers = _peers(40)
    clean = reference_of(peers)
    dirty = reference_of([*peers, *[_account(1.0, 0.92) for _ in range(5)]])
    assert clean is not None and dirty is not None
    assert abs(dirty.pr_median - clean.pr_median) < 1.0 and dirty.pr_spread < 1.5 * clean.pr_spread


def test_no_verdict_on_too_few_games_and_no_reference_of_too_few_accounts() -> None:
    reference = reference_of(_peers(20))
    assert reference is not None
    assert judge(_account(1.0, 0.95, games=MIN_GAMES - 1), reference) is None
    assert reference_of(_peers(MIN_REFERENCE - 1)) is None
    short = [_account(9.0, 0.5, games=MIN_GAMES - 1)] * 30
    assert reference_of(short) is None, "accounts with too few games make no reference"


def test_identical_peers_get_the_floor_spread() -> None:
    reference = reference_of([_account(9.0, 0.55)] * MIN_REFERENCE)
    assert reference is not None and reference.pr_spread == MIN_PR_SPREAD
    verdict = judge(_account(8.5, 0.56), reference)
    assert verdict is not None and not verdict.flagged


def _games(moves: int, count: int) -> list[GameFigures]:
    return [GameFigures(counted=moves, total_loss=0.0, unforced_moves=moves, best_moves=moves) for _ in range(count)]


def test_the_window_holds_twenty_matches_and_enough_plays_newest_first() -> None:
    """At least RECENT_GAMES matches and WINDOW_MOVES unforced plays where the account has them, at most
    MAX_GAMES matches, always the newest."""
    long_matches = _games(40, 50)
    assert window(long_matches) == long_matches[:RECENT_GAMES]
    short = [GameFigures(counted=i, total_loss=0.0, unforced_moves=11, best_moves=0) for i in range(50)]
    chosen = window(short)
    assert chosen == short[:len(chosen)], "the newest, in order"
    assert sum(g.unforced_moves for g in chosen) >= WINDOW_MOVES > sum(g.unforced_moves for g in chosen[:-1])
    assert len(window(_games(1, 100))) == MAX_GAMES
    assert window(_games(5, MIN_GAMES)) == _games(5, MIN_GAMES), "all an account has, when it has less"
    assert window([]) == []
