"""How GNU Backgammon names its variations in match files, and which of our variants each one is.

gnubg plays backgammon from three starts it calls variations: the standard
one, nackgammon, and hypergammon with 1, 2 or 3 checkers a side. Its
``export match mat`` names a variation other than the standard one in a
header comment, ``; [Variation "NackGammon"]`` or
``; [Variation "HyperGammon (3)"]``, and its ``import mat`` reads those
tags and ``[Variation "Backgammon"]``; its SGF ``save match`` and ``load
match`` add ``Nackgammon`` or ``Hypergammon3`` to the rules property ``RU``
(gnubg's export.c, import.c and sgf.c). Our files write these names next to
our own variant name, so gnubg sets up the right board, and read them in a
file that names no variant of ours.

>>> mat_variation("nackgammon"), sgf_rule("hypergammon")
('NackGammon', 'Hypergammon3')
>>> variant_of_mat_variation("HyperGammon (3)"), variant_of_sgf_rule("Crawford")
('hypergammon', None)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from nardy.notation.errors import NotationError


@dataclass(frozen=True, slots=True)
class GnubgVariation:
    """One of gnubg's variations: its ``.mat`` tag value and its SGF ``RU`` word (``None`` for standard)."""

    mat: str
    sgf: str | None


GNUBG_VARIATIONS: Final[dict[str, GnubgVariation]] = {
    "backgammon": GnubgVariation("Backgammon", None),
    "nackgammon": GnubgVariation("NackGammon", "Nackgammon"),
    "hypergammon": GnubgVariation("HyperGammon (3)", "Hypergammon3"),
}
"""Our variant of each gnubg variation nardy plays (hypergammon is the three-checker one)."""

_UNPLAYED_RULES: Final = ("Hypergammon1", "Hypergammon2")
"""The SGF words of gnubg's hypergammon with one or two checkers a side, which nardy does not play."""


def mat_variation(variant: str) -> str | None:
    """The ``[Variation]`` value gnubg writes for ``variant``, or ``None`` where gnubg writes none."""
    known = GNUBG_VARIATIONS.get(variant)
    return known.mat if known is not None and known.sgf is not None else None


def sgf_rule(variant: str) -> str | None:
    """The ``RU`` word gnubg writes for ``variant``, or ``None`` where gnubg writes none."""
    known = GNUBG_VARIATIONS.get(variant)
    return known.sgf if known is not None else None


def variant_of_mat_variation(value: str) -> str:
    """Our variant of a ``.mat`` ``[Variation]`` value (as gnubg, case and trailing text aside)."""
    for variant, names in GNUBG_VARIATIONS.items():
        if value.lower().startswith(names.mat.lower()):
            return variant
    raise NotationError(_refusal(f'[Variation "{value}"]'))


def variant_of_sgf_rule(word: str) -> str | None:
    """Our variant of an SGF ``RU`` word naming a gnubg variation, ``None`` for any other word."""
    for variant, names in GNUBG_VARIATIONS.items():
        if names.sgf is not None and word == names.sgf:
            return variant
    if word in _UNPLAYED_RULES:
        raise NotationError(_refusal(f"RU[{word}]"))
    return None


def _refusal(named: str) -> str:
    known = ", ".join(f'"{names.mat}"' for names in GNUBG_VARIATIONS.values())
    return f"{named} is a variation of gnubg that nardy does not play; nardy plays {known}"


__all__ = ["GNUBG_VARIATIONS", "GnubgVariation", "mat_variation", "sgf_rule", "variant_of_mat_variation",
           "variant_of_sgf_rule"]
