"""The sign-up limits count accounts created, not attempts, so a shared connection is not locked out by typing.

A family behind one address trying weak passwords and taken names used to
spend the 10 sign-ups an hour of that address, and nobody there could sign
up for the rest of the hour. A sign-up refused for its name or password is
answered at once and counts nothing; one that creates an account (or turns
a guest into one) counts against its address and its name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

PASSWORD = "correct horse battery"
ADDRESS = ("198.51.100.7", 5000)


def browser(server: Any, address: tuple[str, int] = ADDRESS) -> TestClient:
    """A new browser at ``address`` on the server's app and event loop."""
    client = TestClient(server.app, client=address)
    client.portal = server.client.portal
    return client


def sign_up(client: TestClient, username: str, password: str = PASSWORD) -> Any:
    token = client.cookies.get("nardy_csrf")
    return client.post("/api/signup", json={"username": username, "password": password},
                       headers={"X-CSRF-Token": token} if token else {})


def test_refused_sign_ups_do_not_use_up_the_address(make_game_server: Callable[..., Any]) -> None:
    server = make_game_server(rate_limits=True, signups_per_address="3 per hour")
    first = browser(server)
    assert sign_up(first, "mother").status_code == 201
    family = browser(server)
    codes = [sign_up(family, name, password).status_code for name, password in [
        ("father", "password"), ("father", "father1"), ("father", "12345678"),  # too easy to guess, too short
        ("mother", PASSWORD), ("MOTHER", PASSWORD),                           # taken, in any letter case
        ("guest-12", PASSWORD), ("x", PASSWORD), ("no spaces", PASSWORD),      # names the rules refuse
    ] * 2]
    assert set(codes) <= {409, 422}, codes
    assert sign_up(family, "father").status_code == 201
    assert sign_up(browser(server), "daughter").status_code == 201
    refused = sign_up(browser(server), "son")
    assert refused.status_code == 429, refused.text
    assert refused.json()["detail"].startswith("too many sign-ups from your address")
    assert "set-cookie" not in refused.headers
    assert sign_up(browser(server, ("203.0.113.9", 5000)), "son").status_code == 201, "another address: its own count"


def test_a_guest_refused_an_account_keeps_the_address_room(make_game_server: Callable[..., Any]) -> None:
    server = make_game_server(rate_limits=True, signups_per_address="1 per hour")
    guest = browser(server)
    assert guest.post("/api/guest").status_code == 201
    assert [sign_up(guest, "cousin", "password").status_code for _ in range(3)] == [422, 422, 422]
    became = sign_up(guest, "cousin")
    assert became.status_code == 201, became.text
    assert became.json()["user"] == {
        "id": became.json()["user"]["id"], "username": "cousin", "guest": False, "moderator": False,
    }
    other = browser(server)
    assert other.post("/api/guest").status_code == 201
    assert sign_up(other, "uncle").status_code == 429, "the one account of the hour is made"


def test_refused_sign_ups_for_a_name_do_not_use_up_the_name(make_game_server: Callable[..., Any]) -> None:
    server = make_game_server(rate_limits=True, signups_per_account="2 per hour")
    for n in range(4):
        assert sign_up(browser(server, (f"203.0.113.{n}", 5000)), "Grandma", "grandma").status_code == 422
    assert sign_up(browser(server), "grandma").status_code == 201
    assert sign_up(browser(server), "GRANDMA").status_code == 409, "taken, not limited"
