"""The mails' texts in the site's five languages (:mod:`nardy.server.services.mail_texts`).

«User-facing text exists in 5 languages: ru, en, ka, tr, el.» Each mail is
written in each, names the account and carries its one link; a count takes
the form its language asks for after a numeral; the language is chosen from
the account, the request, then the browser's ``Accept-Language``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from nardy.server.services.mail_texts import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Mail,
    accepted_language,
    language_tag,
    mail_language,
    reset_mail,
    verification_mail,
)

LINK = "https://nardy.example/#/reset-password/abc"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_mail_is_written_in_each_language_with_the_name_and_one_link(language: str) -> None:
    writers: list[Callable[[str], Mail]] = [
        lambda code: verification_mail(code, username="zurab", link=LINK, days=2),
        lambda code: reset_mail(code, username="zurab", link=LINK, minutes=60),
    ]
    for write in writers:
        mail = write(language)
        assert mail.subject and "\n" not in mail.subject
        assert "zurab" in mail.body and mail.body.count(LINK) == 1 and mail.body.endswith("\n")
        assert not re.search(r"[{}]", mail.body), "every placeholder filled"
        if language != "en":
            english = write("en")
            assert mail.subject != english.subject and mail.body != english.body, "translated, not copied"


@pytest.mark.parametrize(("days", "words"), [
    (1, "1 день"), (2, "2 дня"), (4, "4 дня"), (5, "5 дней"), (11, "11 дней"), (12, "12 дней"), (21, "21 день"),
    (22, "22 дня"), (111, "111 дней"),
])
def test_russian_counts_take_the_form_the_numeral_asks_for(days: int, words: str) -> None:
    assert f"действует {words}:" in verification_mail("ru", username="x", link=LINK, days=days).body


def test_other_languages_count_in_their_own_way() -> None:
    assert "within 1 day:" in verification_mail("en", username="x", link=LINK, days=1).body
    assert "within 1 minute;" in reset_mail("en", username="x", link=LINK, minutes=1).body
    assert "Ισχύει για 1 ημέρα:" in verification_mail("el", username="x", link=LINK, days=1).body
    assert "Ισχύει για 60 λεπτά " in reset_mail("el", username="x", link=LINK, minutes=60).body
    assert "2 დღის განმავლობაში" in verification_mail("ka", username="x", link=LINK, days=2).body
    assert "60 dakika içinde" in reset_mail("tr", username="x", link=LINK, minutes=60).body


def test_an_unknown_language_writes_english() -> None:
    assert verification_mail("de", username="x", link=LINK, days=2) == verification_mail(
        "en", username="x", link=LINK, days=2)


@pytest.mark.parametrize(("header", "language"), [
    ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"),
    ("de-DE, el;q=0.8, tr;q=0.9", "tr"),
    ("ka", "ka"),
    ("en;q=0, el;q=0.1", "el"),
    ("de, fr", None),
    ("ru;q=bad, tr;q=0.2", "tr"),
    ("", None),
    (None, None),
])
def test_the_browsers_preferred_language_is_the_first_the_site_speaks(header: str | None, language: str | None) -> None:
    assert accepted_language(header) == language


def test_the_account_comes_first_then_the_request_then_the_browser_then_english() -> None:
    assert mail_language("ka", "el", "ru") == "ka"
    assert mail_language("", "el", "ru") == "el"
    assert mail_language("", None, "ru-RU") == "ru"
    assert mail_language(None, "xx", "de") == DEFAULT_LANGUAGE
    assert language_tag("EL-gr") == "el" and language_tag("pt") is None
