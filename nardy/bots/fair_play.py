"""Fair play: how far an account's play lies from that of the accounts of its rating, from its analysed games.

Pure statistics on analysis figures (:mod:`nardy.bots.analysis`); the server
feeds it and keeps what it finds for the moderators. docs/fair-play.md
explains the choices at length.

Per account, over its latest rated analysed matches in a variant (its
:func:`window`: at least :data:`RECENT_GAMES` of them and
:data:`WINDOW_MOVES` unforced checker plays, as far as it has them): its PR
(500 × loss per counted decision, as the analysis has it) and its
**engine-match rate**, the share of its unforced checker plays (more than
one legal play, not played by the server on a timeout) that were the
engine's best. The reference is the accounts of the same variant and a
similar rating, each with at least :data:`MIN_GAMES` games; its centre is
the median and its spread the median absolute deviation scaled to a normal
standard deviation (1.4826 × MAD), so that a few engine users among them
move neither. Two robust z-scores follow, each positive where play is better
than the reference's::

    z_pr    = (median PR − PR) / spread of PR
    z_match = (match rate − median match rate) / spread of match rate

The statistic is the smaller of the two: an account is far outside only
when it both loses less and agrees with the engine more than its peers.
It is flagged when the statistic reaches :data:`THRESHOLD`. A flag is only
evidence for a moderator: nothing here, or in the server, bans anyone.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

FAIR_PLAY_LEVEL: Final = "advanced"
"""The analysis level of the background analysis of every rated match: the cheapest (bgsage's 1-ply, our
network's 0-ply). Fair play needs each checker play's loss against the engine's best and whether it was that
best; an engine user copies a bot whose first choice is mostly the shallow one, and a deeper judge would cost
several times the CPU for every rated match played (docs/analysis.md, *How faithful, how fast*)."""

RECENT_GAMES: Final = 20
"""The fewest of an account's latest rated analysed matches (in one variant) its figures cover, where it has
them (:func:`window`)."""

WINDOW_MOVES: Final = 300
"""The fewest unforced checker plays an account's figures cover, where it has them: a window of
:data:`RECENT_GAMES` matches is widened until it holds this many (:func:`window`). A one-point match holds
about 29 unforced plays a side in backgammon and 40 in long nardy, so there 20 matches hold more; in
hypergammon (three checkers) it holds about 11, and 20 matches left the engine's statistic within a spread or two of
the threshold (docs/fair-play.md, *Hypergammon*)."""

MAX_GAMES: Final = 60
"""The most matches a window covers, however few unforced plays they hold (a bound on what a review reads)."""

MIN_GAMES: Final = 10
"""The fewest analysed matches an account needs for a verdict, or to count in a reference."""

MIN_REFERENCE: Final = 10
"""The fewest reference accounts a verdict needs."""

THRESHOLD: Final = 3.0
"""The statistic (the smaller robust z-score) at or over which an account is flagged."""

MIN_PR_SPREAD: Final = 0.5
"""The least spread of PR assumed, so that a reference of near-identical accounts flags no small difference."""

MIN_MATCH_SPREAD: Final = 0.01
"""The least spread of the engine-match rate assumed, for the same reason."""

MATCH_TOLERANCE: Final = 1e-9
"""A checker play whose loss is at most this is the engine's best."""

MAD_TO_SD: Final = 1.4826
"""The median absolute deviation of a normal distribution times this is its standard deviation."""


class HasUnforcedMoves(Protocol):
    """A match's figures as far as :func:`window` reads them."""

    @property
    def unforced_moves(self) -> int: ...


Game = TypeVar("Game", bound=HasUnforcedMoves)


@dataclass(frozen=True)
class GameFigures:
    """One player's figures in one analysed match: counted decisions and their loss, unforced checker plays
    and how many of them were the engine's best."""

    counted: int
    total_loss: float
    unforced_moves: int
    best_moves: int


@dataclass(frozen=True)
class AccountFigures:
    """An account's figures summed over its games."""

    games: int
    counted: int
    total_loss: float
    unforced_moves: int
    best_moves: int

    @property
    def pr(self) -> float:
        """500 × normalized loss per counted decision (0 with nothing counted)."""
        return 500.0 * self.total_loss / self.counted if self.counted else 0.0

    @property
    def match_rate(self) -> float:
        """The share of unforced checker plays that were the engine's best (0 with none)."""
        return self.best_moves / self.unforced_moves if self.unforced_moves else 0.0


@dataclass(frozen=True)
class Reference:
    """The accounts an account is compared with: how many, and the centre and spread of PR and match rate."""

    accounts: int
    pr_median: float
    pr_spread: float
    match_median: float
    match_spread: float


@dataclass(frozen=True)
class Verdict:
    """An account measured against its reference: both z-scores, the statistic, and whether it is flagged."""

    figures: AccountFigures
    reference: Reference
    z_pr: float
    z_match: float
    statistic: float
    threshold: float
    flagged: bool

    def evidence(self) -> dict[str, Any]:
        """Plain JSON data for a moderator: the account's figures, the reference's, the z-scores."""
        return {
            "games": self.figures.games, "counted": self.figures.counted, "pr": round(self.figures.pr, 3),
            "unforced_moves": self.figures.unforced_moves, "best_moves": self.figures.best_moves,
            "match_rate": round(self.figures.match_rate, 4),
            "reference": {
                "accounts": self.reference.accounts,
                "pr_median": round(self.reference.pr_median, 3), "pr_spread": round(self.reference.pr_spread, 3),
                "match_median": round(self.reference.match_median, 4),
                "match_spread": round(self.reference.match_spread, 4),
            },
            "z_pr": round(self.z_pr, 3), "z_match": round(self.z_match, 3),
        }


def game_figures(result: Mapping[str, Any], player: int) -> GameFigures:
    """``player``'s figures in an analysis result (``Analysis.to_json()``): counted decisions and loss, and of
    the counted checker plays, how many lost nothing."""
    counted = unforced = best = 0
    loss = 0.0
    for game in result["games"]:
        for decision in game["decisions"]:
            if decision["player"] != player or not decision["counted"]:
                continue
            counted += 1
            loss += decision["equity_loss"]
            if decision["kind"] == "move":
                unforced += 1
                best += decision["equity_loss"] <= MATCH_TOLERANCE
    return GameFigures(counted, loss, unforced, best)


def window(newest_first: Iterable[Game]) -> list[Game]:
    """The matches an account is judged on, from its matches newest first: the latest ones until they number
    :data:`RECENT_GAMES` and hold :data:`WINDOW_MOVES` unforced checker plays, or :data:`MAX_GAMES` matches.

    The statistic's noise shrinks with the plays it counts, not the matches: a window of a fixed number of
    matches judges a hypergammon account on a third of the plays a backgammon account is judged on.

    >>> short = [GameFigures(counted=12, total_loss=0.1, unforced_moves=10, best_moves=7)] * 45
    >>> long = [GameFigures(counted=30, total_loss=0.3, unforced_moves=25, best_moves=12)] * 45
    >>> len(window(short)), len(window(long)), len(window(short[:12]))
    (30, 20, 12)
    """
    chosen: list[Game] = []
    moves = 0
    for game in newest_first:
        if len(chosen) >= MAX_GAMES or (len(chosen) >= RECENT_GAMES and moves >= WINDOW_MOVES):
            break
        chosen.append(game)
        moves += game.unforced_moves
    return chosen


def account_figures(games: Iterable[GameFigures]) -> AccountFigures:
    """The sum of an account's games' figures (the caller picks its :func:`window`)."""
    chosen = list(games)
    return AccountFigures(
        games=len(chosen), counted=sum(g.counted for g in chosen), total_loss=sum(g.total_loss for g in chosen),
        unforced_moves=sum(g.unforced_moves for g in chosen), best_moves=sum(g.best_moves for g in chosen),
    )


def reference_of(accounts: Sequence[AccountFigures]) -> Reference | None:
    """The reference made of ``accounts`` (those with :data:`MIN_GAMES` or more), or None when they are fewer
    than :data:`MIN_REFERENCE`."""
    kept = [account for account in accounts if account.games >= MIN_GAMES and account.unforced_moves > 0]
    if len(kept) < MIN_REFERENCE:
        return None
    prs = [account.pr for account in kept]
    rates = [account.match_rate for account in kept]
    pr_median, match_median = statistics.median(prs), statistics.median(rates)
    return Reference(
        accounts=len(kept),
        pr_median=pr_median, pr_spread=max(_spread(prs, pr_median), MIN_PR_SPREAD),
        match_median=match_median, match_spread=max(_spread(rates, match_median), MIN_MATCH_SPREAD),
    )


def _spread(values: Sequence[float], median: float) -> float:
    return MAD_TO_SD * statistics.median(abs(value - median) for value in values)


def judge(figures: AccountFigures, reference: Reference, *, threshold: float = THRESHOLD) -> Verdict | None:
    """``figures`` against ``reference``; None when the account has fewer than :data:`MIN_GAMES` games.

    >>> peers = Reference(accounts=40, pr_median=9.0, pr_spread=2.0, match_median=0.55, match_spread=0.04)
    >>> engine = AccountFigures(games=12, counted=300, total_loss=1.2, unforced_moves=280, best_moves=252)
    >>> verdict = judge(engine, peers)
    >>> round(verdict.z_pr, 2), round(verdict.z_match, 2), verdict.flagged
    (3.5, 8.75, True)
    """
    if figures.games < MIN_GAMES or figures.unforced_moves == 0:
        return None
    z_pr = (reference.pr_median - figures.pr) / reference.pr_spread
    z_match = (figures.match_rate - reference.match_median) / reference.match_spread
    statistic = min(z_pr, z_match)
    return Verdict(figures, reference, z_pr, z_match, statistic, threshold, statistic >= threshold)
