"""Upper bounds on the whole numbers the API takes, so that a number too large is a 422, never a 500.

Without them, a page offset of 10^24 reached SQLite's driver and failed
there ("Python int too large to convert to SQLite INTEGER"), as did a clock
of 10^21 seconds on its way into a table's row; PostgreSQL refuses such
numbers too. The API
schema shows every bound (tests/server/test_api_bounds.py checks that no
integer it takes is left without one).
"""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import Field

LARGEST_ROW_NUMBER: Final = 2**31 - 1
"""The largest 32-bit integer: the range of every id column on PostgreSQL, and more rows than a page will skip."""

LONGEST_MATCH: Final = 99
"""The longest match a table may be created for (where its variant sets no lengths of its own)."""

LONGEST_CLOCK_SECONDS: Final = 31 * 86_400
"""A month: more than any clock players are offered (correspondence play gives at most a week a move); the
testing environment, which takes clocks off the offered ones, takes none longer either."""

ClockSeconds = Annotated[int, Field(ge=1, le=LONGEST_CLOCK_SECONDS)]
"""Seconds of a clock (per move, delay, bank) as a request gives them."""
