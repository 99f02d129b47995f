"""Every string of the browser client is translated into Russian, English, Georgian, Turkish and Greek.

Keys are found where the client uses them: ``t("key")`` in ``nardy/web/js/*.js``
and ``data-i18n="key"`` / ``data-i18n-<attribute>="key"`` in the HTML. Keys
are only ever written out literally (never built from pieces), so this scan
finds every one, except the names the server sends as data, translated by
``tData("namespace", id)``: for those every name the server has must have its
key (``variant.<id>`` for each variant of the rules, ``variant_group.<group>`` for each group...).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_args

import pytest

from nardy.bots import BOT_LEVELS
from nardy.bots.hints import Unavailable
from nardy.rules import VARIANTS, WinKind

WEB = Path(__file__).resolve().parents[2] / "nardy" / "web"
LANGUAGES = ("en", "ru", "ka", "tr", "el")

# Values that may stay the same as in English. Keep this tiny and justify each entry:
# a key belongs here only if the English text is also the right text in that language
# (a proper name, a number, a symbol). Tavla and mars (its two-point win) are Turkish words that English
# borrows. Greek writes the games' names, the Western ones too, in Greek letters, so it needs none.
SAME_AS_ENGLISH: dict[str, set[str]] = {
    "ru": set(), "ka": set(), "tr": {"variant.tavla", "family.tavla", "result.mars"}, "el": set(),
}

T_CALL = re.compile(r"""\bt\(\s*(["'])([^"'`]+)\1""")
T_DYNAMIC = re.compile(r"""\bt\(\s*[^"'\s)]""")
DATA_I18N = re.compile(r"""data-i18n(?:-[a-z-]+)?=["']([^"']+)["']""")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
T_DATA = re.compile(r"""\btData\(\s*(["'])(\w+)\1""")

DATA_NAMES: dict[str, tuple[str, ...]] = {
    "variant": tuple(VARIANTS),
    "variant_hint": tuple(VARIANTS),
    "family": tuple(dict.fromkeys(variant.family for variant in VARIANTS.values())),
    "variant_group": tuple(dict.fromkeys(variant.group for variant in VARIANTS.values())),
    "bot": BOT_LEVELS,
    "result": tuple(kind.value for kind in WinKind),
    "analysis_unavailable": get_args(Unavailable),
}
"""The names the server sends as data, by the namespace the client translates them in."""


def load(language: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
    return data


def used_keys() -> dict[str, set[str]]:
    """Each key the client uses, with the files using it."""
    found: dict[str, set[str]] = {}
    for path in sorted((WEB / "js").glob("*.js")):
        text = path.read_text(encoding="utf-8")
        for match in T_CALL.finditer(text):
            found.setdefault(match.group(2), set()).add(path.name)
        for match in T_DATA.finditer(text):
            for name in DATA_NAMES[match.group(2)]:
                found.setdefault(f"{match.group(2)}.{name}", set()).add(path.name)
    for path in sorted(WEB.glob("*.html")):
        for match in DATA_I18N.finditer(path.read_text(encoding="utf-8")):
            found.setdefault(match.group(1), set()).add(path.name)
    return found


def test_the_picker_offers_every_translation() -> None:
    """The settings' language picker (``LANGUAGES`` in i18n.js) lists exactly the translations there are."""
    script = (WEB / "js" / "i18n.js").read_text(encoding="utf-8")
    picker = re.search(r"export const LANGUAGES = \[(.*?)\];", script, re.S)
    assert picker, "i18n.js has no LANGUAGES list"
    offered = re.findall(r'code:\s*"(\w+)"', picker.group(1))
    files = sorted(path.stem for path in (WEB / "i18n").glob("*.json"))
    assert sorted(offered) == files == sorted(LANGUAGES)


def test_the_client_uses_keys() -> None:
    keys = used_keys()
    assert len(keys) > 150, "the scan found suspiciously few keys"


def test_keys_are_written_out_literally() -> None:
    """t(...) is always called with a string literal, so no key escapes the scan.

    i18n.js is the translator itself: it passes on the keys of data-i18n attributes, which the scan reads.
    """
    offenders = []
    for path in sorted((WEB / "js").glob("*.js")):
        if path.name == "i18n.js":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if T_DYNAMIC.search(line) and "function t(" not in line:
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "t() called with a computed key:\n" + "\n".join(offenders)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_used_key_exists(language: str) -> None:
    strings = load(language)
    missing = {key: sorted(files) for key, files in used_keys().items() if key not in strings}
    assert not missing, f"keys missing from {language}.json: {missing}"


def test_no_unused_keys() -> None:
    unused = set(load("en")) - set(used_keys())
    assert not unused, f"keys in en.json that nothing uses: {sorted(unused)}"


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_same_key_set_as_english(language: str) -> None:
    english, other = set(load("en")), set(load(language))
    assert other == english, f"only in en: {sorted(english - other)}; only in {language}: {sorted(other - english)}"


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_nothing_left_in_english(language: str) -> None:
    english, other = load("en"), load(language)
    same = sorted(k for k in english if other.get(k) == english[k] and k not in SAME_AS_ENGLISH[language])
    assert not same, f"{language}.json repeats the English text of: {same}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_values_are_nonempty_with_the_same_placeholders(language: str) -> None:
    english, other = load("en"), load(language)
    for key, text in other.items():
        assert isinstance(text, str) and text.strip(), f"{language}: {key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), (
            f"{language}: {key} has placeholders {PLACEHOLDER.findall(text)}, English has {PLACEHOLDER.findall(english[key])}"
        )


def test_whitelist_is_tiny() -> None:
    assert all(len(keys) <= 5 for keys in SAME_AS_ENGLISH.values())
