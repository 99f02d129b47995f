"""Match files nested deeper than any real one are refused with the reason, never by a RecursionError.

An SGF of 400,000 nested ``(;`` and a record whose JSON nests 100,000 deep
both ran the readers out of stack (a 500 at ``POST /api/imports``).
"""

from __future__ import annotations

import pytest

from nardy.notation import NotationError
from nardy.notation.match_file import read_match_file
from nardy.notation.sgf import MAX_NESTING, transcript_from_sgf


def test_sgf_game_trees_nested_too_deep_are_refused_with_the_line() -> None:
    with pytest.raises(NotationError, match=f"line 1: game trees nested more than {MAX_NESTING} deep"):
        transcript_from_sgf("(;" * 400_000)


def test_sgf_nesting_up_to_the_cap_is_still_read_as_far_as_the_syntax_goes() -> None:
    """Nesting alone is no reason to refuse: at the cap the reader gets to the real problem (a tree left open)."""
    with pytest.raises(NotationError, match="expected '\\)' to close the game tree"):
        transcript_from_sgf("(;" * MAX_NESTING)


def test_a_match_file_of_nested_sgf_trees_is_refused() -> None:
    with pytest.raises(NotationError, match="nested more than"):
        read_match_file("(;" * 400_000 + ")" * 400_000, "deep.sgf")


@pytest.mark.parametrize("opening", ["[", '{"a":'])
def test_a_record_nested_too_deep_is_refused(opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    text = '{"games":' + opening * 100_000 + "1" + closing * 100_000 + "}"
    with pytest.raises(NotationError, match="nests too deep"):
        read_match_file(text, "deep.json")
