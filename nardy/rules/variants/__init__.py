"""The registry of variants: the names used everywhere (CLI, JSON, protocol)."""

from typing import Final

from nardy.rules.errors import UnknownVariantError
from nardy.rules.variant import Variant
from nardy.rules.variants.backgammon import BACKGAMMON, DAVE
from nardy.rules.variants.fevga import FEVGA
from nardy.rules.variants.georgian import GEORGIAN
from nardy.rules.variants.greek import PLAKOTO
from nardy.rules.variants.hypergammon import HYPERGAMMON, NACKGAMMON
from nardy.rules.variants.long import LONG_BOLSHIE, LONG_TOURNAMENT, LONG_TRADITIONAL
from nardy.rules.variants.portes import PORTES
from nardy.rules.variants.tavla import TAVLA
from nardy.rules.variants.tavli import TAVLI

VARIANTS: Final[dict[str, Variant]] = {
    variant.name: variant
    for variant in (
        BACKGAMMON, DAVE, GEORGIAN, LONG_TRADITIONAL, LONG_TOURNAMENT, LONG_BOLSHIE,
        HYPERGAMMON, NACKGAMMON, PORTES, TAVLA, PLAKOTO, FEVGA, TAVLI,
    )
}


def find_variant(name: str) -> Variant:
    """The variant registered as ``name``, or :class:`UnknownVariantError` listing the names."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}") from None


__all__ = ["VARIANTS", "find_variant"]
