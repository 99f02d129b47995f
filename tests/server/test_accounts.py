"""Accounts over HTTP: signup, login, logout, guests, sessions, cookies, CSRF protection,
the password rule and the rate limits of the account routes.

Each test builds a small app of its own (the accounts router, its rate
limiter, the CSRF middleware and a WebSocket route that reads the session
cookie) over a fresh SQLite file, and drives it through ``TestClient``. The
rate limits are off in testing mode; the tests of them turn them on with
small limits, and stand for other client addresses with ``TestClient(client=...)``.
The limits across two server processes and behind a proxy are in
``test_login_limits.py``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI, WebSocket
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from nardy.server.api.accounts import router as accounts_router
from nardy.server.api.ratelimit import RateLimiter
from nardy.server.api.security import CSRF_COOKIE, CSRF_HEADER, CSRFMiddleware
from nardy.server.auth.cookies import SESSION_COOKIE, session_from_cookie_header
from nardy.server.auth.signouts import SignOuts
from nardy.server.pubsub import InProcessPubSub
from nardy.server.services import accounts
from nardy.server.settings import Settings
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.models import Base, LoginSession, User

PASSWORD = "correct horse battery"
WRONG = "wrong username or password"
SIGN_IN = "sign in or continue as a guest"
CSRF_REJECTED = "missing or wrong CSRF token"

AppFactory = Callable[..., FastAPI]


@pytest.fixture
def make_app(tmp_path: Path) -> AppFactory:
    """Builds the test app; keyword arguments go to ``Settings``."""

    def build(**settings: Any) -> FastAPI:
        url = f"sqlite:///{tmp_path / 't.sqlite3'}"
        engine = make_engine(url)
        Base.metadata.create_all(engine)
        app = FastAPI()
        config = Settings(environment="testing", database_url=url, **settings)
        app.state.settings = config
        app.state.db = make_sessionmaker(engine)
        app.state.rate_limiter = RateLimiter(config.redis_url, enabled=config.rate_limited)
        app.state.sign_outs = SignOuts(InProcessPubSub(), app.state.db)
        app.include_router(accounts_router)
        app.add_middleware(CSRFMiddleware)

        @app.websocket("/ws")
        async def whoami(websocket: WebSocket) -> None:
            with app.state.db() as db:
                login = session_from_cookie_header(db, websocket.headers.get("cookie"))
            await websocket.accept()
            await websocket.send_json({"user": None if login is None else login[0].username})
            await websocket.close()

        return app

    return build


@pytest.fixture
def app(make_app: AppFactory) -> FastAPI:
    return make_app()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def db_session(app: FastAPI) -> Session:
    session: Session = app.state.db()
    return session


def signup(client: TestClient, username: str = "alice", password: str = PASSWORD, **headers: str) -> Any:
    return client.post("/api/signup", json={"username": username, "password": password}, headers=headers)


def csrf(client: TestClient) -> dict[str, str]:
    """The header a page adds to state-changing requests, read from the CSRF cookie."""
    return {CSRF_HEADER: client.cookies[CSRF_COOKIE]}


def set_cookies(response: Any) -> dict[str, Any]:
    """The response's Set-Cookie headers, parsed, by cookie name."""
    found: dict[str, Any] = {}
    for header in response.headers.get_list("set-cookie"):
        cookie = SimpleCookie()
        cookie.load(header)
        found.update(cookie)
    return found


def me(client: TestClient) -> Any:
    return client.get("/api/me")


# Signup, cookies and storage


def test_signup_signs_in_and_sets_both_cookies(client: TestClient) -> None:
    response = signup(client)
    assert response.status_code == 201
    user = response.json()["user"]
    assert user["username"] == "alice" and user["guest"] is False and isinstance(user["id"], int)
    cookies = set_cookies(response)
    session, token = cookies[SESSION_COOKIE], cookies[CSRF_COOKIE]
    assert session["httponly"] is True
    assert not token["httponly"], "the page's script must be able to read the CSRF token"
    for cookie in (session, token):
        assert cookie["samesite"].lower() == "lax"
        assert cookie["path"] == "/"
        assert cookie["max-age"] == str(30 * 24 * 60 * 60)
        assert not cookie["secure"], "testing settings do not ask for Secure cookies"
    assert me(client).json() == {"user": user}


def test_cookies_are_secure_when_the_settings_say_so(make_app: AppFactory) -> None:
    with TestClient(make_app(cookie_secure=True)) as client:
        cookies = set_cookies(signup(client))
    assert cookies[SESSION_COOKIE]["secure"] is True
    assert cookies[CSRF_COOKIE]["secure"] is True


def test_password_is_stored_as_an_argon2id_hash_of_rfc_9106s_low_memory_profile(make_app: AppFactory) -> None:
    """Outside testing (where the cheapest profile is the default) every new hash takes RFC 9106's parameters."""
    app = make_app(password_hash_profile="rfc9106-low-memory")
    with TestClient(app) as client:
        signup(client)
    with db_session(app) as db:
        user = db.scalars(select(User)).one()
    assert user.password_hash is not None
    assert user.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert PASSWORD not in user.password_hash


def test_the_cheapest_hashes_are_for_testing_only() -> None:
    assert Settings(environment="production").password_hashing == "rfc9106-low-memory"
    assert Settings(environment="development").password_hashing == "rfc9106-low-memory"
    assert Settings(environment="testing").password_hashing == "cheapest"
    for environment in ("production", "development"):
        with pytest.raises(ValueError, match="testing environment only"):
            Settings(environment=environment, password_hash_profile="cheapest")


def test_only_the_sha256_of_the_session_token_is_stored(app: FastAPI, client: TestClient) -> None:
    signup(client)
    token = client.cookies[SESSION_COOKIE]
    with db_session(app) as db:
        login = db.scalars(select(LoginSession)).one()
    assert login.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert login.csrf_token == client.cookies[CSRF_COOKIE]
    assert login.csrf_token != token


def test_duplicate_username_in_other_case_is_refused(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as first:
        assert signup(first, "Alice").status_code == 201
    with TestClient(app) as second:
        response = signup(second, "aLICE")
    assert response.status_code == 409
    assert response.json() == {"detail": "username 'aLICE' is taken"}
    with db_session(app) as db:
        assert db.scalars(select(User.username)).all() == ["Alice"]


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("al", "username must be 3 to 20 characters long"),
        ("a" * 21, "username must be 3 to 20 characters long"),
        ("al ice", "username may contain only letters A-Z and a-z, digits, '_' and '-'"),
        ("alïce", "username may contain only letters A-Z and a-z, digits, '_' and '-'"),
        ("Guest-alice", "usernames starting with 'guest-' are reserved for guests"),
    ],
)
def test_invalid_username_is_refused_with_the_reason(
    app: FastAPI, client: TestClient, username: str, reason: str
) -> None:
    response = signup(client, username)
    assert response.status_code == 422
    assert response.json() == {"detail": reason}
    assert SESSION_COOKIE not in client.cookies
    with db_session(app) as db:
        assert db.scalars(select(User)).all() == []


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("short12", "password must be at least 8 characters long"),
        ("x" * 129, "password must be at most 128 characters long"),
    ],
)
def test_weak_password_is_refused_with_the_reason(client: TestClient, password: str, reason: str) -> None:
    response = signup(client, password=password)
    assert response.status_code == 422
    assert response.json() == {"detail": reason}


@pytest.mark.parametrize(
    ("username", "password", "reason"),
    [
        ("alice", "password", "This is a top-10 common password."),
        ("alice", "12345678", "This is a top-10 common password."),
        ("alice", "qwertyuiop", "This is a top-100 common password."),
        ("zorblax", "zorblax2024", "Add another word or two."),
        ("alice", "nardy2024", "Add another word or two."),
    ],
    ids=["common", "digits", "keyboard", "username and year", "site name and year"],
)
def test_easily_guessed_password_is_refused_saying_why(
    app: FastAPI, client: TestClient, username: str, password: str, reason: str
) -> None:
    response = signup(client, username, password)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith("password is too easy to guess: ") and reason in detail, detail
    assert SESSION_COOKIE not in client.cookies
    with db_session(app) as db:
        assert db.scalars(select(User)).all() == []


def test_the_username_counts_as_a_guess_for_its_own_password_only(client: TestClient) -> None:
    assert signup(client, "zorblax", "zorblax2024").status_code == 422
    assert signup(client, "alice", "zorblax2024").status_code == 201


def test_a_guest_cannot_become_an_account_with_a_guessable_password(app: FastAPI, client: TestClient) -> None:
    guest = client.post("/api/guest").json()
    response = signup(client, "alice", "alice123", **csrf(client))
    assert response.status_code == 422
    assert response.json()["detail"].startswith("password is too easy to guess")
    assert me(client).json() == guest
    with db_session(app) as db:
        assert db.get_one(User, guest["user"]["id"]).is_guest


@pytest.mark.parametrize(
    "body",
    [
        {"username": "alice", "password": PASSWORD, "email": "alice@example.org"},
        {"username": "alice"},
        {"username": 12345, "password": PASSWORD},
        {"username": "alice", "password": "x" * 2000},
    ],
    ids=["unknown field", "missing field", "wrong type", "oversized"],
)
@pytest.mark.parametrize("route", ["/api/signup", "/api/login"])
def test_malformed_bodies_are_422_naming_the_field(client: TestClient, route: str, body: dict[str, Any]) -> None:
    response = client.post(route, json=body)
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"][0] == "body" and problem["msg"]


# Login, me, logout


def test_login_with_the_right_password_in_any_letter_case(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as client:
        signup(client, "Alice")
        user_id = me(client).json()["user"]["id"]
    with TestClient(app) as client:
        response = client.post("/api/login", json={"username": "ALICE", "password": PASSWORD})
        assert response.status_code == 200
        assert response.json() == {"user": {"id": user_id, "username": "Alice", "guest": False, "moderator": False}}
        assert set(set_cookies(response)) == {SESSION_COOKIE, CSRF_COOKIE}
        assert me(client).json()["user"]["id"] == user_id


@pytest.mark.parametrize(
    ("username", "password"),
    [("alice", "not the password"), ("bob", PASSWORD), ("bad name!", PASSWORD)],
    ids=["wrong password", "unknown user", "impossible name"],
)
def test_failed_logins_get_one_message(make_app: AppFactory, username: str, password: str) -> None:
    app = make_app()
    with TestClient(app) as client:
        signup(client)
    with TestClient(app) as client:
        response = client.post("/api/login", json={"username": username, "password": password})
        assert response.status_code == 401
        assert response.json() == {"detail": WRONG}
        assert "set-cookie" not in response.headers
        assert me(client).status_code == 401


def test_a_guest_cannot_log_in_by_name(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as client:
        name = client.post("/api/guest").json()["user"]["username"]
    with TestClient(app) as client:
        response = client.post("/api/login", json={"username": name, "password": PASSWORD})
    assert response.status_code == 401
    assert response.json() == {"detail": WRONG}


def test_login_replaces_an_outdated_hash(make_app: AppFactory) -> None:
    app = make_app(password_hash_profile="rfc9106-low-memory")
    with db_session(app) as db:
        db.add(
            User(
                username="old",
                password_hash=PasswordHasher(time_cost=1, memory_cost=8192).hash(PASSWORD),
                created_at=datetime.now(UTC),
            )
        )
        db.commit()
    with TestClient(app) as client:
        assert client.post("/api/login", json={"username": "old", "password": PASSWORD}).status_code == 200
    with db_session(app) as db:
        new_hash = db.scalars(select(User.password_hash)).one()
    assert new_hash is not None
    assert not PasswordHasher().check_needs_rehash(new_hash)
    assert PasswordHasher().verify(new_hash, PASSWORD)


def test_me_without_a_session_is_401(client: TestClient) -> None:
    response = me(client)
    assert response.status_code == 401
    assert response.json() == {"detail": SIGN_IN}


def test_logout_ends_the_session_and_the_old_cookie_is_refused(app: FastAPI, client: TestClient) -> None:
    signup(client)
    old_token = client.cookies[SESSION_COOKIE]
    response = client.post("/api/logout", headers=csrf(client))
    assert response.status_code == 204
    assert set(set_cookies(response)) == {SESSION_COOKIE, CSRF_COOKIE}
    assert SESSION_COOKIE not in client.cookies and CSRF_COOKIE not in client.cookies
    assert me(client).status_code == 401
    client.cookies.set(SESSION_COOKIE, old_token)
    assert me(client).json() == {"detail": SIGN_IN}
    with db_session(app) as db:
        assert db.scalars(select(LoginSession)).all() == []


def test_logout_without_a_session_is_harmless(client: TestClient) -> None:
    assert client.post("/api/logout").status_code == 204


def test_logging_in_again_closes_the_previous_session(app: FastAPI, client: TestClient) -> None:
    signup(client)
    first = client.cookies[SESSION_COOKIE]
    response = client.post("/api/login", json={"username": "alice", "password": PASSWORD}, headers=csrf(client))
    assert response.status_code == 200
    assert client.cookies[SESSION_COOKIE] != first
    with db_session(app) as db:
        assert len(db.scalars(select(LoginSession)).all()) == 1


def test_forged_session_cookie_is_401(client: TestClient) -> None:
    client.cookies.set(SESSION_COOKIE, "forged-token-that-was-never-issued")
    response = me(client)
    assert response.status_code == 401
    assert response.json() == {"detail": SIGN_IN}


def test_expired_session_is_401_and_deleted(app: FastAPI, client: TestClient) -> None:
    with db_session(app) as db:
        user = accounts.create_user(db, username="alice", password=PASSWORD)
        token, _ = accounts.open_session(db, user=user, days=1, now=datetime.now(UTC) - timedelta(days=2))
    client.cookies.set(SESSION_COOKIE, token)
    assert me(client).json() == {"detail": SIGN_IN}
    with db_session(app) as db:
        assert db.scalars(select(LoginSession)).all() == []


def test_session_user_honours_the_expiry_time(app: FastAPI) -> None:
    start = datetime(2030, 1, 1, tzinfo=UTC)
    with db_session(app) as db:
        user = accounts.create_guest(db, now=start)
        token, login = accounts.open_session(db, user=user, days=3, now=start)
        assert login.expires_at == start + timedelta(days=3)
    with db_session(app) as db:
        found = accounts.session_user(db, token, now=start + timedelta(days=3, seconds=-1))
        assert found is not None and found[0].id == user.id
    with db_session(app) as db:
        assert accounts.session_user(db, token, now=start + timedelta(days=3)) is None
    with db_session(app) as db:
        assert accounts.session_user(db, token, now=start) is None, "the expired session was deleted"


# Guests


def test_guest_gets_a_session_without_an_account(app: FastAPI, client: TestClient) -> None:
    response = client.post("/api/guest")
    assert response.status_code == 201
    guest = response.json()["user"]
    assert guest["guest"] is True and re.fullmatch(r"Guest-\d{4}", guest["username"])
    assert set(set_cookies(response)) == {SESSION_COOKIE, CSRF_COOKIE}
    assert me(client).json() == {"user": guest}
    with db_session(app) as db:
        stored = db.get_one(User, guest["id"])
    assert stored.is_guest and stored.password_hash is None


def test_guest_names_are_short_readable_unique_usernames(app: FastAPI) -> None:
    """``Guest-4821``, not ``guest-76cdd51c48d9fd``: short in a header and a move list, unique like
    every username, made of a username's characters, and reserved from accounts by its prefix.
    Once every four-digit name is taken, a guest gets five digits."""
    with db_session(app) as db:
        names = [accounts.create_guest(db).username for _ in range(40)]
        assert all(re.fullmatch(r"Guest-[1-9]\d{3}", name) for name in names), names
        assert len({name.lower() for name in names}) == len(names)
        for name in names:
            with pytest.raises(accounts.InvalidUsername, match="reserved for guests"):
                accounts.create_user(db, username=name, password=PASSWORD)
        taken = {name.lower() for name in names}
        now = datetime.now(UTC)
        db.add_all(User(username=f"Guest-{n}", password_hash=None, is_guest=True, created_at=now)
                   for n in range(1000, 10000) if f"guest-{n}" not in taken)
        db.commit()
        longer = accounts.create_guest(db).username
    assert re.fullmatch(r"Guest-[1-9]\d{4}", longer), longer
    assert accounts.USERNAME_MIN_LENGTH <= len(longer) <= accounts.USERNAME_MAX_LENGTH


def test_guest_again_keeps_the_same_guest(client: TestClient) -> None:
    first = client.post("/api/guest").json()
    response = client.post("/api/guest", headers=csrf(client))
    assert response.status_code == 200
    assert response.json() == first


def test_guest_while_signed_in_to_an_account_is_refused(client: TestClient) -> None:
    signup(client)
    response = client.post("/api/guest", headers=csrf(client))
    assert response.status_code == 409
    assert response.json() == {"detail": "already signed in as 'alice'; log out first"}


def test_signup_as_a_guest_turns_the_guest_into_the_account(app: FastAPI, client: TestClient) -> None:
    guest = client.post("/api/guest").json()["user"]
    guest_token = client.cookies[SESSION_COOKIE]
    response = signup(client, "alice", **csrf(client))
    assert response.status_code == 201
    assert response.json() == {"user": {"id": guest["id"], "username": "alice", "guest": False, "moderator": False}}
    assert client.cookies[SESSION_COOKIE] != guest_token, "a new session for the new identity"
    assert me(client).json() == response.json()
    with db_session(app) as db:
        assert db.scalars(select(User.id)).all() == [guest["id"]], "the same row, so its games stay"
        assert len(db.scalars(select(LoginSession)).all()) == 1
    client.cookies.clear()
    client.cookies.set(SESSION_COOKIE, guest_token)
    assert me(client).status_code == 401
    client.cookies.clear()
    assert client.post("/api/login", json={"username": "alice", "password": PASSWORD}).status_code == 200


def test_failed_upgrade_leaves_the_guest_a_guest(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as other:
        signup(other, "alice")
    with TestClient(app) as client:
        guest = client.post("/api/guest").json()
        response = signup(client, "ALICE", **csrf(client))
        assert response.status_code == 409
        assert me(client).json() == guest


def test_signup_while_signed_in_to_an_account_is_refused(client: TestClient) -> None:
    signup(client, "alice")
    response = signup(client, "bob", **csrf(client))
    assert response.status_code == 409
    assert "'alice' already has an account" in response.json()["detail"]


# CSRF


@pytest.mark.parametrize("given", [None, "wrong-token", ""], ids=["missing", "wrong", "empty"])
def test_state_change_with_a_session_needs_its_csrf_token(client: TestClient, given: str | None) -> None:
    signup(client)
    headers = {} if given is None else {CSRF_HEADER: given}
    response = client.post("/api/logout", headers=headers)
    assert response.status_code == 403
    assert response.json() == {"detail": CSRF_REJECTED}
    assert me(client).status_code == 200, "still signed in: the refused request changed nothing"
    assert client.post("/api/logout", headers=csrf(client)).status_code == 204
    assert me(client).status_code == 401


def test_a_guest_cannot_be_upgraded_without_the_csrf_token(app: FastAPI, client: TestClient) -> None:
    guest = client.post("/api/guest").json()
    response = signup(client, "alice")
    assert response.status_code == 403
    assert response.json() == {"detail": CSRF_REJECTED}
    assert me(client).json() == guest
    with db_session(app) as db:
        assert db.get_one(User, guest["user"]["id"]).is_guest


def test_login_with_a_session_needs_the_csrf_token(client: TestClient) -> None:
    signup(client)
    before = client.cookies[SESSION_COOKIE]
    response = client.post("/api/login", json={"username": "alice", "password": PASSWORD})
    assert response.status_code == 403
    assert client.cookies[SESSION_COOKIE] == before


def test_another_sessions_csrf_token_is_refused(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as other:
        signup(other, "bob")
        bobs_token = other.cookies[CSRF_COOKIE]
    with TestClient(app) as client:
        signup(client, "alice")
        assert client.post("/api/logout", headers={CSRF_HEADER: bobs_token}).status_code == 403


def test_a_stale_session_cookie_does_not_block_login(make_app: AppFactory) -> None:
    app = make_app()
    with TestClient(app) as client:
        signup(client)
        client.post("/api/logout", headers=csrf(client))
        client.cookies.set(SESSION_COOKIE, "expired-or-forged")
        response = client.post("/api/login", json={"username": "alice", "password": PASSWORD})
        assert response.status_code == 200
        assert me(client).status_code == 200


def test_safe_methods_need_no_csrf_token(client: TestClient) -> None:
    signup(client)
    assert me(client).status_code == 200


# The session cookie outside the HTTP routes


def test_websocket_finds_the_user_from_the_cookie_header(client: TestClient) -> None:
    with client.websocket_connect("/ws") as websocket:
        assert websocket.receive_json() == {"user": None}
    signup(client)
    with client.websocket_connect("/ws") as websocket:
        assert websocket.receive_json() == {"user": "alice"}


def test_session_from_cookie_header_ignores_other_malformed_cookies(app: FastAPI) -> None:
    with db_session(app) as db:
        user = accounts.create_user(db, username="alice", password=PASSWORD)
        token, _ = accounts.open_session(db, user=user, days=1)
        headers = [
            f"{SESSION_COOKIE}={token}",
            f'prefs={{"a":1,"b":2}}; foo[x]=1; bad@name=1; {SESSION_COOKIE}={token}; theme=dark',
        ]
        for header in headers:
            found = session_from_cookie_header(db, header)
            assert found is not None and found[0].username == "alice", header
        for no_session in [None, "", "theme=dark", f"{SESSION_COOKIE}=", f"{SESSION_COOKIE}=not-a-token"]:
            assert session_from_cookie_header(db, no_session) is None, no_session


# Rate limits (off in testing mode: each test turns them on)

LIMITED = {"rate_limits": True}


def retry_after(response: Any) -> int:
    """The 429's ``Retry-After`` seconds, checked against the seconds its message names."""
    assert response.status_code == 429, response.text
    seconds = int(response.headers["retry-after"])
    match = re.fullmatch(r".+; try again in (\d+) s", response.json()["detail"])
    assert match is not None and int(match.group(1)) == seconds, response.json()
    return seconds


def login(client: TestClient, username: str = "alice", password: str = PASSWORD) -> Any:
    return client.post("/api/login", json={"username": username, "password": password})


@pytest.fixture
def verified(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The passwords checked against a hash, in order."""
    checked: list[str] = []
    verify = accounts._verify

    def counting(hasher: PasswordHasher, password_hash: str, password: str) -> bool:
        checked.append(password)
        return verify(hasher, password_hash, password)

    monkeypatch.setattr(accounts, "_verify", counting)
    return checked


def test_failed_logins_per_account_are_limited_without_checking_the_password(
    make_app: AppFactory, verified: list[str]
) -> None:
    app = make_app(**LIMITED, login_failures_per_account_address="3 per minute")
    with TestClient(app) as client:
        signup(client, "Alice")
    with TestClient(app) as client:
        for attempt in range(3):
            assert login(client, "alice", f"guess number {attempt}").status_code == 401
        refused = login(client, "ALICE", PASSWORD)
        assert 1 <= retry_after(refused) <= 60
        assert refused.json()["detail"].startswith("too many wrong passwords for this account from here")
        assert "set-cookie" not in refused.headers
        assert verified == ["guess number 0", "guess number 1", "guess number 2"], "no hash check when refused"
        assert me(client).status_code == 401
    with TestClient(app, client=("203.0.113.7", 4000)) as elsewhere:
        assert login(elsewhere).status_code == 200, "the failures lock out their own address only"


def test_a_successful_login_forgets_the_failures_before_it(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, login_failures_per_account_address="3 per minute")
    with TestClient(app) as client:
        signup(client)
        client.cookies.clear()
        assert [login(client, password="wrong guess").status_code for _ in range(2)] == [401, 401]
        assert login(client).status_code == 200
        client.cookies.clear()
        assert [login(client, password="wrong guess").status_code for _ in range(4)] == [401, 401, 401, 429]


def test_logins_per_address_are_limited(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, logins_per_address="3 per minute")
    with TestClient(app) as client:
        assert [login(client, f"user{n}").status_code for n in range(3)] == [401, 401, 401]
        refused = login(client, "someone")
        assert refused.json()["detail"].startswith("too many logins from your address")
        assert 1 <= retry_after(refused) <= 60
    with TestClient(app, client=("203.0.113.7", 4000)) as elsewhere:
        assert login(elsewhere, "someone").status_code == 401, "another address has its own count"


def test_a_login_refused_for_its_account_does_not_use_up_the_address(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, login_failures_per_account_address="2 per minute", logins_per_address="4 per minute")
    with TestClient(app) as client:
        codes = [login(client, "alice", "wrong guess").status_code for _ in range(4)]
        assert codes == [401, 401, 429, 429]
        assert [login(client, "bob", "wrong guess").status_code for _ in range(2)] == [401, 401]
        assert login(client, "carol").json()["detail"].startswith("too many logins from your address")


def test_signups_per_address_are_limited_counting_accounts_created(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, signups_per_address="2 per hour")
    with TestClient(app) as client:
        assert signup(client, "alice", "password").status_code == 422
        assert signup(client, "alice").status_code == 201
        client.cookies.clear()
        assert signup(client, "bob").status_code == 201
        client.cookies.clear()
        refused = signup(client, "carol")
        assert refused.json()["detail"].startswith("too many sign-ups from your address")
        assert 3500 <= retry_after(refused) <= 3600
        assert "set-cookie" not in refused.headers
    with db_session(app) as db:
        assert db.scalars(select(User.username)).all() == ["alice", "bob"]


def test_signups_for_a_taken_username_are_refused_in_any_letter_case_and_not_counted(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, signups_per_account="2 per hour")
    for n, name in enumerate(["alice", "ALICE", "Alice", "aLiCe"]):
        with TestClient(app, client=(f"203.0.113.{n}", 4000)) as client:
            response = signup(client, name)
            assert response.status_code == [201, 409, 409, 409][n], response.text
    assert response.json()["detail"] == "username 'aLiCe' is taken"


def test_new_guests_per_address_are_limited(make_app: AppFactory) -> None:
    app = make_app(**LIMITED, guests_per_address="2 per hour")
    with TestClient(app) as client:
        assert client.post("/api/guest").status_code == 201
        assert client.post("/api/guest", headers=csrf(client)).status_code == 200, "the same guest: nothing new"
        client.cookies.clear()
        assert client.post("/api/guest").status_code == 201
        client.cookies.clear()
        refused = client.post("/api/guest")
        assert refused.json()["detail"].startswith("too many guests from your address")
        assert retry_after(refused) >= 3500
        assert "set-cookie" not in refused.headers


def test_the_limits_are_off_in_testing_mode_unless_turned_on(make_app: AppFactory) -> None:
    app = make_app(guests_per_address="1 per hour")
    with TestClient(app) as client:
        for _ in range(3):
            client.cookies.clear()
            assert client.post("/api/guest").status_code == 201
    assert Settings(environment="production").rate_limited
    assert Settings(environment="development").rate_limited
    assert not Settings(environment="testing").rate_limited


@pytest.mark.parametrize("rate", ["ten per minute", "0 per minute", "1/second; 5/minute"])
def test_a_malformed_limit_is_refused_when_the_settings_are_read(rate: str) -> None:
    with pytest.raises(ValueError, match="logins_per_address"):
        Settings(logins_per_address=rate)


def test_unreachable_redis_counts_in_memory_instead_of_failing(
    make_app: AppFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app(**LIMITED, redis_url="redis://127.0.0.1:1/0", login_failures_per_account_address="2 per minute")
    with TestClient(app) as client:
        codes = [login(client, "alice", "wrong guess").status_code for _ in range(3)]
    assert codes == [401, 401, 429]
    assert "Redis unreachable" in caplog.text
