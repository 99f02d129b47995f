"""Mails speak the account's language (``docs/operations.md``, *Mail*), through a real SMTP server (aiosmtpd).

«User-facing text exists in 5 languages: ru, en, ka, tr, el.» A mail is
written in the account's language (set from the page when an address is
set, or by ``POST /api/account/language``), else in the one the request
names, else in the browser's (``Accept-Language``), else in English. The
words themselves are :mod:`nardy.server.services.mail_texts`'; here, that
the routes choose them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from email.message import EmailMessage
from typing import get_args

import pytest

from nardy.server.api import account_life as account_routes
from nardy.server.services import mail_texts
from tests.server.game_server import PASSWORD, GameServer, Player
from tests.server.mail_catcher import MailCatcher, link_in, mail_catcher

SITE = "http://testserver"


@pytest.fixture
def mail() -> Iterator[MailCatcher]:
    with mail_catcher() as catcher:
        yield catcher


@pytest.fixture
def server(make_game_server: Callable[..., GameServer], mail: MailCatcher) -> GameServer:
    return make_game_server(smtp_url=mail.url, public_url=SITE)


def account(server: GameServer, name: str) -> Player:
    return server.player(name, connect=False)


def text_of(message: EmailMessage) -> str:
    """The plain-text body, its line ends as written (SMTP carries them as CRLF)."""
    return str(message.get_content()).replace("\r\n", "\n")


def set_address(person: Player, email: str, **more: str) -> None:
    answer = person.post("/api/account/email", {"email": email, "password": PASSWORD, **more})
    assert answer.status_code == 200, answer.text


def verified(person: Player, mail: MailCatcher, email: str, **more: str) -> None:
    """``person`` sets ``email`` and follows the link mailed to it: a reset goes to a verified address only."""
    count = len(mail.messages)
    set_address(person, email, **more)
    token = link_in(mail.wait_for(count + 1)[count]).rsplit("/", 1)[1]
    assert person.post("/api/account/email/verify", {"token": token}).status_code == 200


def test_a_russian_page_sets_the_accounts_language_and_its_verification_mail_is_russian(
    server: GameServer, mail: MailCatcher,
) -> None:
    owner = account(server, "vanya")
    set_address(owner, "vanya@example.org", language="ru")
    (message,) = mail.wait_for(1)
    assert message["Subject"] == "Подтвердите адрес электронной почты"
    body = text_of(message)
    assert body.startswith("Здравствуйте, vanya!") and "Она действует 2 дня:" in body
    assert "/#/verify-email/" in link_in(message)
    assert owner.client.get("/api/account").json()["language"] == "ru"


@pytest.mark.parametrize("language", mail_texts.LANGUAGES)
def test_each_language_gets_its_own_verification_mail(server: GameServer, mail: MailCatcher, language: str) -> None:
    owner = account(server, f"owner_{language}")
    set_address(owner, f"{language}@example.org", language=language)
    (message,) = mail.wait_for(1)
    expected = mail_texts.verification_mail(language, username=f"owner_{language}", link=link_in(message), days=2)
    assert (message["Subject"], text_of(message)) == (expected.subject, expected.body)
    subjects = {mail_texts.verification_mail(code, username="x", link="l", days=2).subject
                for code in mail_texts.LANGUAGES}
    assert len(subjects) == len(mail_texts.LANGUAGES), "five languages, five texts"


def test_a_reset_mail_speaks_the_accounts_language_whoever_asks(server: GameServer, mail: MailCatcher) -> None:
    owner = account(server, "nino")
    verified(owner, mail, "nino@example.org", language="ka")
    changed = owner.post("/api/account/language", {"language": "tr"})
    assert changed.status_code == 200 and changed.json()["language"] == "tr"
    stranger = server.player(sign_up=False, connect=False)
    asked = stranger.client.post("/api/password-reset", json={"account": "nino", "language": "el"},
                                 headers={"Accept-Language": "ru"})
    assert asked.status_code == 202
    (_, reset) = mail.wait_for(2)
    assert reset["Subject"] == "Yeni parola belirleyin", "the account's language, not the asker's"
    assert "60 dakika içinde" in text_of(reset)


def test_without_a_language_of_its_own_the_request_chooses_then_the_browser_then_english(
    server: GameServer, mail: MailCatcher,
) -> None:
    owner = account(server, "eleni")
    verified(owner, mail, "eleni@example.org")
    assert owner.client.get("/api/account").json()["language"] is None
    stranger = server.player(sign_up=False, connect=False)
    for body, header, subject in [
        ({"language": "el"}, "ru", "Ορίστε νέο κωδικό πρόσβασης"),
        ({}, "de-DE, ru;q=0.5, el;q=0.8", "Ορίστε νέο κωδικό πρόσβασης"),
        ({}, "ru-RU,ru;q=0.9", "Новый пароль для nardy"),
        ({}, "de", "Set a new password"),
    ]:
        count = len(mail.messages)
        asked = stranger.client.post("/api/password-reset", json={"account": "eleni", **body},
                                     headers={"Accept-Language": header})
        assert asked.status_code == 202
        assert mail.wait_for(count + 1)[count]["Subject"] == subject, (body, header)


def test_a_language_the_site_does_not_speak_is_refused_and_changes_nothing(
    server: GameServer, mail: MailCatcher,
) -> None:
    owner = account(server, "hans")
    assert owner.post("/api/account/language", {"language": "de"}).status_code == 422
    refused = owner.post("/api/account/email", {"email": "hans@example.org", "password": PASSWORD, "language": "de"})
    assert refused.status_code == 422 and not mail.messages
    assert owner.client.get("/api/account").json()["language"] is None
    assert server.client.post("/api/account/language", json={"language": "ru"}).status_code in (401, 403)
    assert owner.post("/api/account/language", {"language": None}).json()["language"] is None
    assert set(get_args(account_routes.Language)) == set(mail_texts.LANGUAGES), "the routes take the mails' languages"
