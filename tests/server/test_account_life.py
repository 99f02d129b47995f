"""The account's life through the real app: a lockout nobody can aim, a new password, an e-mail address verified
by a mailed link, a password reset by a single-use link that expires, the account's data, and its deletion.

Issue: «Count failures per (account, address) and per address; an account's own known devices (an existing session
cookie) and a password reset still get in», «Tests run a real SMTP server (aiosmtpd, started by the test) and follow
the links», «Delete my account (games kept with the name anonymised, ratings of opponents untouched, coins gone) and
download my data». Other client addresses are ``TestClient(client=...)`` browsers on the same app.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from nardy.server.services import account_life
from nardy.server.services.mail import SmtpServer
from nardy.server.settings import Settings
from nardy.store.models import ChatMessage, CoinAccount, CoinMovement, LoginSession, Rating, User
from tests.server.game_server import PASSWORD, GameServer, Player
from tests.server.mail_catcher import MailCatcher, link_in, mail_catcher

ServerFactory = Callable[..., GameServer]

NEW_PASSWORD = "purple stapler orbit 42"
SITE = "http://testserver"
OPENING = [(3, 1)]
BANK_CLOCK = {"delay_seconds": 12, "bank_seconds_per_point": 90}


@pytest.fixture
def mail() -> Iterator[MailCatcher]:
    with mail_catcher() as catcher:
        yield catcher


@pytest.fixture
def server(make_game_server: ServerFactory, mail: MailCatcher) -> GameServer:
    """The app mailing through the test's SMTP server, its links on ``http://testserver``."""
    return make_game_server(smtp_url=mail.url, public_url=SITE)


def browser(server: GameServer, address: str = "127.0.0.1") -> Player:
    """A new browser, signed in as nobody, at ``address``."""
    client = TestClient(server.app, client=(address, 50000))
    client.portal = server.client.portal
    return Player(server, client, address)


def sign_up(server: GameServer, name: str, address: str = "127.0.0.1") -> Player:
    person = browser(server, address)
    response = person.post("/api/signup", {"username": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    person.user = response.json()["user"]
    return person


def user_id(person: Player) -> int:
    assert person.user is not None
    return int(person.user["id"])


def log_in(person: Player, name: str, password: str = PASSWORD) -> Any:
    return person.post("/api/login", {"username": name, "password": password})


def signed_in_as(person: Player) -> str | None:
    user = person.client.get("/api/session").json()["user"]
    return None if user is None else str(user["username"])


def with_verified_email(server: GameServer, mail: MailCatcher, person: Player, email: str) -> None:
    """``person`` sets ``email`` and follows the link mailed to it."""
    before = len(mail.messages)
    assert person.post("/api/account/email", {"email": email, "password": PASSWORD}).status_code == 200
    (message,) = mail.wait_for(before + 1)[before:]
    follow(person, link_in(message), "/api/account/email/verify", {})


def follow(person: Player, link: str, route: str, body: dict[str, Any]) -> Any:
    """Open a mailed link as the page does: load the page, then post the token in its address to ``route``."""
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == SITE, link
    assert person.client.get(parts.path or "/").status_code == 200
    token = parts.fragment.rsplit("/", 1)[1]
    return person.post(route, {"token": token, **body})


def rows(server: GameServer, model: Any, **where: Any) -> list[Any]:
    with server.app.state.db() as db:
        query = select(model).filter_by(**where)
        return list(db.scalars(query))


# The lockout

LOCKOUT = {"rate_limits": True, "login_failures_per_account_address": "2 per minute"}


def test_wrong_passwords_from_another_address_cannot_lock_the_owner_out(make_game_server: ServerFactory) -> None:
    server = make_game_server(**LOCKOUT)
    sign_up(server, "owner", "198.51.100.1")
    attacker = browser(server, "203.0.113.66")
    codes = [log_in(attacker, "owner", f"guess {n}").status_code for n in range(4)]
    assert codes == [401, 401, 429, 429]
    assert log_in(attacker, "owner").status_code == 429, "locked out where the guesses came from, even when right"
    owner = browser(server, "198.51.100.1")
    assert log_in(owner, "owner").status_code == 200, "the owner's address is not locked out"
    assert signed_in_as(owner) == "owner"


def test_a_known_device_gets_in_where_its_address_is_locked_out(make_game_server: ServerFactory) -> None:
    server = make_game_server(**LOCKOUT)
    device = sign_up(server, "owner", "192.0.2.10")
    same_network = browser(server, "192.0.2.10")
    assert [log_in(same_network, "owner", "guess").status_code for _ in range(3)] == [401, 401, 429]
    assert log_in(same_network, "owner").status_code == 429
    assert log_in(device, "owner").status_code == 200, "a browser signed in to the account is a known device"
    other_account = sign_up(server, "someone", "192.0.2.10")
    assert log_in(other_account, "owner").status_code == 429, "a session of another account is no known device"


def test_wrong_passwords_from_one_address_count_across_accounts(make_game_server: ServerFactory) -> None:
    server = make_game_server(rate_limits=True, login_failures_per_address="2 per minute")
    sprayer = browser(server, "203.0.113.5")
    assert [log_in(sprayer, f"name{n}", "guess").status_code for n in range(2)] == [401, 401]
    refused = log_in(sprayer, "name9", "guess")
    assert refused.status_code == 429 and refused.json()["detail"].startswith("too many wrong passwords from your")
    sign_up(server, "owner", "198.51.100.2")
    assert log_in(browser(server, "198.51.100.2"), "owner").status_code == 200


def test_a_password_reset_clears_the_failures_of_the_account(
    make_game_server: ServerFactory, mail: MailCatcher,
) -> None:
    server = make_game_server(**LOCKOUT, smtp_url=mail.url, public_url=SITE)
    owner = sign_up(server, "owner")
    with_verified_email(server, mail, owner, "owner@example.org")
    owner.post("/api/logout")
    assert [log_in(owner, "owner", "guess").status_code for _ in range(3)] == [401, 401, 429]
    assert owner.post("/api/password-reset", {"account": "owner"}).status_code == 202
    reset = follow(owner, link_in(mail.wait_for(2)[1]), "/api/password-reset/confirm", {"password": NEW_PASSWORD})
    assert reset.status_code == 200
    owner.post("/api/logout")
    assert log_in(owner, "owner", NEW_PASSWORD).status_code == 200, "the new password starts the count afresh"


def test_a_stolen_session_cannot_guess_the_current_password_without_limit(make_game_server: ServerFactory) -> None:
    server = make_game_server(**LOCKOUT)
    thief = sign_up(server, "owner")
    body = {"current_password": "guess", "new_password": NEW_PASSWORD}
    codes = [thief.post("/api/account/password", body).status_code for _ in range(3)]
    assert codes == [403, 403, 429]


# A new password


def test_changing_the_password_ends_the_other_sessions_and_keeps_this_one(server: GameServer) -> None:
    here = sign_up(server, "owner")
    there = browser(server)
    assert log_in(there, "owner").status_code == 200
    wrong = here.post("/api/account/password", {"current_password": "not it", "new_password": NEW_PASSWORD})
    assert wrong.status_code == 403 and wrong.json()["detail"] == "the current password is wrong"
    weak = here.post("/api/account/password", {"current_password": PASSWORD, "new_password": "password1"})
    assert weak.status_code == 422
    assert signed_in_as(there) == "owner", "refusals change nothing"
    done = here.post("/api/account/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert done.status_code == 204, done.text
    assert signed_in_as(here) == "owner" and signed_in_as(there) is None
    assert log_in(browser(server), "owner").status_code == 401
    assert log_in(browser(server), "owner", NEW_PASSWORD).status_code == 200


def test_a_guest_has_no_password_to_change(server: GameServer) -> None:
    guest = server.guest(connect=False)
    response = guest.post("/api/account/password", {"current_password": "", "new_password": NEW_PASSWORD})
    assert response.status_code == 409


# E-mail


def test_an_address_is_verified_by_following_the_link_mailed_to_it(server: GameServer, mail: MailCatcher) -> None:
    owner = sign_up(server, "owner")
    assert owner.client.get("/api/account").json() == {
        "username": "owner", "guest": False, "email": None, "email_verified": False, "mail_available": True,
        "language": None,
    }
    wrong = owner.post("/api/account/email", {"email": "owner@example.org", "password": "not it"})
    assert wrong.status_code == 403 and not mail.messages
    answer = owner.post("/api/account/email", {"email": "Owner@Example.org", "password": PASSWORD})
    assert answer.status_code == 200 and answer.json()["email_verified"] is False
    (message,) = mail.wait_for(1)
    assert message["To"] == "Owner@Example.org" and message["From"] == "no-reply@testserver"
    link = link_in(message)
    assert "/#/verify-email/" in link
    stranger = browser(server)
    assert follow(stranger, link, "/api/account/email/verify", {}).status_code == 200, "the link is the proof"
    assert owner.client.get("/api/account").json()["email_verified"] is True
    again = follow(stranger, link, "/api/account/email/verify", {})
    assert again.status_code == 400 and again.json()["detail"] == account_life.BAD_LINK


def test_a_link_for_an_address_no_longer_the_accounts_verifies_nothing(server: GameServer, mail: MailCatcher) -> None:
    owner = sign_up(server, "owner")
    owner.post("/api/account/email", {"email": "old@example.org", "password": PASSWORD})
    owner.post("/api/account/email", {"email": "new@example.org", "password": PASSWORD})
    old, new = mail.wait_for(2)
    assert follow(owner, link_in(old), "/api/account/email/verify", {}).status_code == 400
    assert follow(owner, link_in(new), "/api/account/email/verify", {}).status_code == 200
    assert owner.client.get("/api/account").json()["email"] == "new@example.org"
    removed = owner.post("/api/account/email", {"email": None, "password": PASSWORD})
    assert removed.json()["email"] is None and removed.json()["email_verified"] is False


@pytest.mark.parametrize(
    "email", ["owner", "owner@", "@example.org", "a b@example.org", "owner@example", "x" * 250 + "@e.org"],
)
def test_a_malformed_address_is_refused_and_changes_nothing(server: GameServer, mail: MailCatcher, email: str) -> None:
    owner = sign_up(server, "owner")
    assert owner.post("/api/account/email", {"email": email, "password": PASSWORD}).status_code == 422
    assert owner.client.get("/api/account").json()["email"] is None and not mail.messages


# Password reset


def test_a_reset_link_sets_a_new_password_once_and_ends_every_session(server: GameServer, mail: MailCatcher) -> None:
    owner = sign_up(server, "owner")
    with_verified_email(server, mail, owner, "owner@example.org")
    forgetful = browser(server, "198.51.100.3")
    asked = forgetful.post("/api/password-reset", {"account": "OWNER@example.org"})
    assert asked.status_code == 202
    (message,) = mail.wait_for(2)[1:]
    assert message["To"] == "owner@example.org" and "/#/reset-password/" in link_in(message)
    weak = follow(forgetful, link_in(message), "/api/password-reset/confirm", {"password": "password1"})
    assert weak.status_code == 422, "a weak password leaves the link usable"
    done = follow(forgetful, link_in(message), "/api/password-reset/confirm", {"password": NEW_PASSWORD})
    assert done.status_code == 200 and done.json()["user"]["username"] == "owner"
    assert signed_in_as(forgetful) == "owner" and signed_in_as(owner) is None
    used = follow(browser(server), link_in(message), "/api/password-reset/confirm", {"password": "another 55 words"})
    assert used.status_code == 400 and used.json()["detail"] == account_life.BAD_LINK
    assert log_in(browser(server), "owner", NEW_PASSWORD).status_code == 200


def test_a_new_address_voids_the_reset_links_mailed_before(server: GameServer, mail: MailCatcher) -> None:
    owner = sign_up(server, "owner")
    with_verified_email(server, mail, owner, "old@example.org")
    assert browser(server).post("/api/password-reset", {"account": "owner"}).status_code == 202
    reset = link_in(mail.wait_for(2)[1])
    assert owner.post("/api/account/email", {"email": "new@example.org", "password": PASSWORD}).status_code == 200
    assert follow(browser(server), reset, "/api/password-reset/confirm", {"password": NEW_PASSWORD}).status_code == 400


def test_a_reset_answers_alike_whether_or_not_the_account_exists(server: GameServer, mail: MailCatcher) -> None:
    verified = sign_up(server, "verified")
    with_verified_email(server, mail, verified, "v@example.org")
    unverified = sign_up(server, "unverified")
    unverified.post("/api/account/email", {"email": "u@example.org", "password": PASSWORD})
    mail.wait_for(2)
    asker = browser(server)
    answers = [
        asker.post("/api/password-reset", {"account": account})
        for account in ("verified", "unverified", "nobody", "nobody@example.org", "u@example.org")
    ]
    assert {(a.status_code, a.json()["detail"]) for a in answers} == {(202, answers[0].json()["detail"])}
    assert len(mail.wait_for(3)) == 3 and [m["To"] for m in mail.messages[2:]] == ["v@example.org"]


def test_an_expired_reset_link_is_refused(server: GameServer, mail: MailCatcher) -> None:
    owner = sign_up(server, "owner")
    with_verified_email(server, mail, owner, "owner@example.org")
    with server.app.state.db() as db:
        user = db.scalars(select(User).where(User.username == "owner")).one()
        token = account_life.issue_reset(db, user, now=datetime.now(UTC) - timedelta(hours=1, seconds=1))
    answer = owner.post("/api/password-reset/confirm", {"token": token, "password": NEW_PASSWORD})
    assert answer.status_code == 400 and answer.json()["detail"] == account_life.BAD_LINK


def test_without_a_mail_server_reset_and_addresses_are_unavailable(game_server: GameServer) -> None:
    owner = sign_up(game_server, "owner")
    assert owner.client.get("/api/account").json()["mail_available"] is False
    for route, body in (("/api/password-reset", {"account": "owner"}),
                        ("/api/account/email", {"email": "o@example.org", "password": PASSWORD})):
        answer = owner.post(route, body)
        assert answer.status_code == 503 and "unavailable" in answer.json()["detail"], route


def test_a_mail_server_that_cannot_be_reached_changes_no_answer(
    make_game_server: ServerFactory, caplog: pytest.LogCaptureFixture,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    server = make_game_server(smtp_url=f"smtp://127.0.0.1:{closed}", public_url=SITE)
    owner = sign_up(server, "owner")
    with server.app.state.db() as db:
        user = db.get(User, user_id(owner))
        assert user is not None
        user.email, user.email_verified = "owner@example.org", True
        db.commit()
    assert browser(server).post("/api/password-reset", {"account": "owner"}).status_code == 202
    assert "mail to example.org not sent" in caplog.text


def test_the_mail_server_url_is_read_with_its_login_and_port() -> None:
    assert SmtpServer.from_url("smtps://me%40host:p%3Ass@mail.example.org") == SmtpServer(
        "smtps", "mail.example.org", 465, "me@host", "p:ss")
    assert SmtpServer.from_url("smtp://127.0.0.1:2525") == SmtpServer("smtp", "127.0.0.1", 2525, None, None)
    for wrong in ("http://mail.example.org", "smtp://", "mail.example.org:25"):
        with pytest.raises(ValueError, match="smtp_url"):
            Settings(smtp_url=wrong)


# The account's data, and its deletion


def finished_match(server: GameServer, alice: Player, bob: Player) -> str:
    """A rated coin match of one point between ``alice`` and ``bob``; ``alice`` writes in its chat and resigns."""
    for person in (alice, bob):
        person.connect()
        server.players.append(person)
    table, _ = server.match("georgian", 1, opening=OPENING, players=[alice, bob], rated=True, stake=20, **BANK_CLOCK)
    alice.ok("say", table, text="good luck")
    alice.ok("resign", table)
    assert alice.state(table)["status"] == "finished"
    return table


def test_the_data_download_holds_the_profile_games_chat_and_coins(server: GameServer, mail: MailCatcher) -> None:
    alice, bob = sign_up(server, "alice"), sign_up(server, "bob")
    with_verified_email(server, mail, alice, "alice@example.org")
    table = finished_match(server, alice, bob)
    download = alice.client.get("/api/account/export")
    assert download.status_code == 200
    assert download.headers["content-disposition"] == 'attachment; filename="nardy-alice.json"'
    data = download.json()
    assert data["profile"]["username"] == "alice" and data["profile"]["email"] == "alice@example.org"
    (game,) = data["games"]
    assert (game["id"], game["players"], game["status"], game["winner"]) == (table, ["alice", "bob"], "finished", 1)
    assert [line["text"] for line in data["chat"]] == ["good luck"]
    assert data["coins"]["balance"] == 980 and [m["reason"] for m in data["coins"]["ledger"]] == ["grant", "match_lost"]
    assert server.client.get("/api/account/export").status_code == 401


def test_deleting_the_account_keeps_the_games_under_another_name(server: GameServer) -> None:
    alice, bob = sign_up(server, "alice"), sign_up(server, "bob")
    table = finished_match(server, alice, bob)
    alice_id = user_id(alice)
    bob_ratings = [(r.family, r.rating, r.matches) for r in rows(server, Rating, user_id=user_id(bob))]
    assert bob_ratings and rows(server, Rating, user_id=alice_id)

    wrong = alice.post("/api/account/delete", {"password": "not it"})
    assert wrong.status_code == 403 and signed_in_as(alice) == "alice"
    deleted = alice.post("/api/account/delete", {"password": PASSWORD})
    assert deleted.status_code == 204, deleted.text
    assert signed_in_as(alice) is None and not rows(server, LoginSession, user_id=alice_id)
    assert log_in(browser(server), "alice").status_code == 401

    record = server.record(table)
    names = [e["payload"]["name"] for e in record["events"] if e["kind"] == "seated"]
    assert names == [f"Deleted-{alice_id}", "bob"]
    assert "alice" not in str(record)
    assert not rows(server, CoinAccount, user_id=alice_id) and not rows(server, CoinMovement, user_id=alice_id)
    assert server.client.get(f"/api/users/Deleted-{alice_id}/coins").status_code == 404, "no starting grant shown"
    assert not rows(server, ChatMessage, user_id=alice_id) and not rows(server, Rating, user_id=alice_id)
    assert [(r.family, r.rating, r.matches) for r in rows(server, Rating, user_id=user_id(bob))] == bob_ratings, \
        "the opponent's rating is untouched"
    assert sign_up(server, "alice").user is not None, "the name is free again"
    assert browser(server).post("/api/signup", {"username": "Deleted-1", "password": PASSWORD}).status_code == 422


def test_an_account_at_an_unfinished_table_cannot_be_deleted(server: GameServer) -> None:
    alice = sign_up(server, "alice")
    server.create(alice, "georgian", 1)
    refused = alice.post("/api/account/delete", {"password": PASSWORD})
    assert refused.status_code == 409 and "first" in refused.json()["detail"]
    assert signed_in_as(alice) == "alice"


def test_a_deleted_account_leaves_the_matchmaking_pool(server: GameServer) -> None:
    alice = sign_up(server, "alice")
    joined = alice.post("/api/matchmaking/join", {"variant": "backgammon"})
    assert joined.status_code == 200 and joined.json()["status"] == "waiting", joined.text
    assert alice.post("/api/account/delete", {"password": PASSWORD}).status_code == 204
    status = server.client.portal.call(server.app.state.matchmaking.status, user_id(alice))
    assert status["status"] == "idle", status
