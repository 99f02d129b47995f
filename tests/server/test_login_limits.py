"""The account routes' rate limits in real server processes: shared through Redis, and not fooled by a header.

Two ``python -m nardy.server`` processes on one database and one Redis must
add up the failed logins of one account, whichever process each attempt
reaches. A client that sends its own ``X-Forwarded-For`` must not escape its
address's limit unless the server was told to trust the proxy it came
through (``NARDY_TRUSTED_PROXIES``). The limits' rules on one process are in
``test_accounts.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from nardy.server.api.ratelimit import REDIS_KEY_PREFIX
from tests.server.live_server import (
    PASSWORD, REDIS_URL, HttpUser, LiveServer, redis_unreachable, running_together, unique_name,
)

LIMITS_ON = {
    "NARDY_RATE_LIMITS": "true",
    # counters in Redis outlive a test run, and every test client is 127.0.0.1: keep the address limits out of the way
    "NARDY_LOGINS_PER_ADDRESS": "100000 per minute",
    "NARDY_SIGNUPS_PER_ADDRESS": "100000 per hour",
}


@pytest.fixture
def redis_url() -> str:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    return REDIS_URL


@pytest.fixture
def two_processes(tmp_path: Path, redis_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Processes A and B on one SQLite database and one Redis, with 4 failed logins allowed per account."""
    database = f"sqlite:///{tmp_path / 'shared' / 'nardy.sqlite3'}"
    (tmp_path / "shared").mkdir()
    env = {**LIMITS_ON, "NARDY_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS": "4 per minute"}
    pair = [LiveServer(tmp_path / name, database_url=database, redis_url=redis_url, env=env) for name in ("a", "b")]
    with running_together(pair):
        yield pair[0], pair[1]


def login(base_url: str, username: str, password: str) -> httpx.Response:
    return httpx.post(f"{base_url}/api/login", json={"username": username, "password": password}, timeout=15)


def test_failed_logins_through_two_processes_add_up_in_redis(two_processes: tuple[LiveServer, LiveServer]) -> None:
    a, b = two_processes
    name = unique_name("brute")
    HttpUser(a.base_url).signup(name)
    codes = [login(server.base_url, name, f"guess {n}").status_code for n, server in enumerate((a, b, a, b))]
    assert codes == [401, 401, 401, 401]
    for server in (a, b):
        refused = login(server.base_url, name.upper(), PASSWORD)
        assert refused.status_code == 429, refused.text
        assert 1 <= int(refused.headers["retry-after"]) <= 60
    client = redis.Redis.from_url(REDIS_URL)
    try:
        assert client.keys(f"{REDIS_KEY_PREFIX}*login-failures/{name.lower()}*"), "the count lives in Redis"
    finally:
        client.close()


def spoofing_guests(server: LiveServer, forwarded_for: list[str]) -> list[int]:
    """POST /api/guest as a new browser each time, claiming each address in turn; the statuses."""
    return [
        httpx.post(f"{server.base_url}/api/guest", headers={"X-Forwarded-For": address}, timeout=15).status_code
        for address in forwarded_for
    ]


@pytest.fixture
def guest_servers(tmp_path: Path) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two separate processes allowing 2 guests per address: one trusts no proxy, one trusts 127.0.0.1."""
    env = {**LIMITS_ON, "NARDY_GUESTS_PER_ADDRESS": "2 per hour"}
    pair = [
        LiveServer(tmp_path / "plain", env=env),
        LiveServer(tmp_path / "proxied", env={**env, "NARDY_TRUSTED_PROXIES": '["127.0.0.1"]'}),
    ]
    try:
        for server in pair:
            server.launch()
        for server in pair:
            server.wait_ready()
        yield pair[0], pair[1]
    finally:
        for server in pair:
            server.kill()


def test_a_spoofed_forwarded_for_does_not_escape_the_address_limit(
    guest_servers: tuple[LiveServer, LiveServer],
) -> None:
    plain, _ = guest_servers
    assert spoofing_guests(plain, ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) == [201, 201, 429]


def test_the_forwarded_address_counts_behind_a_trusted_proxy(guest_servers: tuple[LiveServer, LiveServer]) -> None:
    _, proxied = guest_servers
    assert spoofing_guests(proxied, ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) == [201, 201, 201]
    assert spoofing_guests(proxied, ["198.51.100.1", "198.51.100.1"]) == [201, 429]
