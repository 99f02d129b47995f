"""Ratings (004): Elo from 1500, with the match-length-aware formula of FIBS.

The formula is FIBS's own (``help formula`` on the First Internet Backgammon
Server, quoted in the Backgammon FAQ, bkgm.com/rgb/rgb.cgi?view+1093)::

    D       = |r1 - r2|                               rating difference
    P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)    the underdog wins an n-point match
    P       = 1 - P_upset if the underdog wins, P_upset if the favourite wins
    K       = max(1, 5 - experience / 100)            each player's own experience
    winner  += 4 * K_winner * sqrt(n) * P
    loser   -= 4 * K_loser  * sqrt(n) * P

``experience`` is the sum of the lengths of the (rated) matches the player
finished before this one; every player starts at 1500 with experience 0. With
equal ratings ``P_upset`` is 1/2, so a 1-point match between two new players
moves each by 4 * 5 * 1 * 0.5 = 10. (MacFIBS's glossary writes ``K`` with the
experience *after* the match, ``5 - (E + n) / 100``; we follow the server's
``help formula``, which uses the experience before it.)

A rating is *provisional* while ``experience < 400``: exactly while FIBS's
``K`` is above 1 and the rating still moves faster than a settled one.

Ratings are kept per variant family (``Variant.family`` of the rules), since
skill does not carry across them: backgammon and backgammon with dave share
``backgammon``; Georgian short nardy is ``georgian``; every long nardy rule set
is ``long``. A match length of 0 (unlimited) counts as 1 here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from nardy.rules import VARIANTS, find_variant
from nardy.store import moderation_repo
from nardy.store.models import Rating, RatingChange

START_RATING = 1500.0
"""Every player's rating before their first rated match (004)."""

SETTLED_EXPERIENCE = 400
"""From this experience on, K is 1 and the rating is no longer provisional."""

FAMILIES = tuple(dict.fromkeys(variant.family for variant in VARIANTS.values()))
"""The variant families a rating is kept for, in the order of the variants."""


def family_of(variant: str) -> str:
    """The rating family of a variant name: the rules' family of that variant (ValueError for an unknown name).

    >>> family_of("dave"), family_of("georgian"), family_of("long-tournament")
    ('backgammon', 'georgian', 'long')
    """
    return find_variant(variant).family


def upset_probability(difference: float, length: int) -> float:
    """FIBS's chance that the lower-rated player wins an ``length``-point match.

    >>> upset_probability(0, 7)
    0.5
    """
    n = max(1, length)
    return 1.0 / (10 ** (abs(difference) * math.sqrt(n) / 2000) + 1)


def experience_factor(experience: int) -> float:
    """FIBS's K: ``max(1, 5 - experience / 100)``.

    >>> experience_factor(0), experience_factor(250), experience_factor(1000)
    (5.0, 2.5, 1.0)
    """
    return max(1.0, 5.0 - experience / 100)


def is_provisional(experience: int) -> bool:
    """True while the player's experience is under 400 (K above 1)."""
    return experience < SETTLED_EXPERIENCE


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating and experience in one family."""

    rating: float = START_RATING
    experience: int = 0


def rating_changes(winner: Standing, loser: Standing, length: int) -> tuple[float, float]:
    """(the winner's gain, the loser's loss), both positive, for an ``length``-point match.

    >>> rating_changes(Standing(), Standing(), 1)
    (10.0, 10.0)
    """
    n = max(1, length)
    p_upset = upset_probability(winner.rating - loser.rating, n)
    p = 1 - p_upset if winner.rating < loser.rating else p_upset
    base = 4 * math.sqrt(n) * p
    return base * experience_factor(winner.experience), base * experience_factor(loser.experience)


# ----- the database


def standing_of(db: Session, user_id: int, family: str) -> Standing:
    """The player's current standing in ``family`` (1500 and no experience if never rated)."""
    row = db.get(Rating, (user_id, family))
    return Standing(row.rating, row.experience) if row is not None else Standing()


def rated_match_rows(
    db: Session,
    *,
    family: str,
    winner_user_id: int,
    loser_user_id: int,
    length: int,
    at: datetime,
    table_id: str | None = None,
) -> list[Rating | RatingChange]:
    """The rows a rated match adds or changes (both ratings and two history rows), not yet added; none when either
    player is marked engine-assisted (``docs/moderation.md``).

    The table service adds them in the same transaction as the match's last
    events; :func:`record_rated_match` adds and commits them on its own.
    """
    if winner_user_id == loser_user_id:
        raise ValueError("a match against oneself is not rated")
    if moderation_repo.engine_assisted_among(db, (winner_user_id, loser_user_id)):
        return []  # an engine-assisted player's rating is frozen, and a match against them rates nobody
    n = max(1, length)
    winner = standing_of(db, winner_user_id, family)
    loser = standing_of(db, loser_user_id, family)
    gain, loss = rating_changes(winner, loser, n)
    rows: list[Rating | RatingChange] = []
    for user_id, before, after in (
        (winner_user_id, winner, winner.rating + gain),
        (loser_user_id, loser, loser.rating - loss),
    ):
        current = db.get(Rating, (user_id, family))
        if current is None:
            current = Rating(user_id=user_id, family=family, rating=after, experience=n, matches=1, updated_at=at)
        else:
            current.rating = after
            current.experience += n
            current.matches += 1
            current.updated_at = at
        rows.append(current)
        rows.append(RatingChange(
            user_id=user_id, family=family, table_id=table_id, before=before.rating, after=after, at=at,
        ))
    return rows


def record_rated_match(
    db: Session,
    *,
    family: str,
    winner_user_id: int,
    loser_user_id: int,
    length: int,
    at: datetime,
    table_id: str | None = None,
) -> None:
    """Apply one rated match's result to both players' ratings and histories, and commit."""
    db.add_all(rated_match_rows(
        db, family=family, winner_user_id=winner_user_id, loser_user_id=loser_user_id,
        length=length, at=at, table_id=table_id,
    ))
    db.commit()


# ----- the rating graph


def rating_svg(points: Sequence[tuple[datetime, float]], *, title: str, width: int = 480, height: int = 240) -> str:
    """A small SVG line chart of a rating history: one point per rated match, starting at 1500.

    The x axis counts rated matches (dates of the first and last are written
    under it); the y axis is the rating, with three labelled grid lines.
    """
    left, right, top, bottom = 52, 16, 28, 36
    values = [START_RATING, *(value for _, value in points)]
    low, high = min(values), max(values)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + (plot_w * i / (len(values) - 1) if len(values) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (high - value) / (high - low)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f"<title>{_escape(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        f'<text x="{left}" y="16" font-size="13" fill="#222">{_escape(title)}</text>',
    ]
    for value in (low, (low + high) / 2, high):
        parts.append(f'<line x1="{left}" y1="{y(value):.1f}" x2="{width - right}" y2="{y(value):.1f}" '
                     f'stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(value) + 4:.1f}" text-anchor="end" fill="#555">{value:.0f}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#888"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" stroke="#888"/>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle" fill="#555">'
                 f'rated matches ({len(points)})</text>')
    if points:
        parts.append(f'<text x="{left}" y="{top + plot_h + 14}" fill="#555">{points[0][0]:%Y-%m-%d}</text>')
        parts.append(f'<text x="{width - right}" y="{top + plot_h + 14}" text-anchor="end" fill="#555">'
                     f'{points[-1][0]:%Y-%m-%d}</text>')
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f6feb" stroke-width="2"/>')
    for i, value in enumerate(values[1:], start=1):
        parts.append(f'<circle cx="{x(i):.1f}" cy="{y(value):.1f}" r="2.5" fill="#1f6feb"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
