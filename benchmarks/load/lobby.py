"""The players' HTTP requests: a guest (or a new account) each, a table opened by one and joined by the other.

The setup and the tables opened when a match ends go through here; the requests made while the
clients play are timed (the ``HTTP create+join during play`` row), those of the setup are not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

from benchmarks.load.players import Player, Slot

HTTP_TIMEOUT = 30.0
PASSWORD = "load-benchmark-quartz-lantern-7319"
"""The password of the accounts that play rated tables (any that passes the server's strength check)."""
RATED_CLOCK = {"delay_seconds": 86_400, "bank_seconds_per_point": 86_400}
"""A rated table's bank clock: a day, so that no clock runs out during a run and ends a match by itself."""


class Lobby:
    """One HTTP connection pool for all the players of a client process, each request with its player's cookies."""

    def __init__(self, url: str, on_request: Callable[[float], None]) -> None:
        """``on_request`` is told every request's round trip in ms."""
        import httpx
        from http.cookiejar import CookieJar, DefaultCookiePolicy

        self.url = url
        self.on_request = on_request
        jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))  # cookies are sent per player
        self.http = httpx.AsyncClient(cookies=jar, timeout=HTTP_TIMEOUT,
                                      limits=httpx.Limits(max_connections=16, max_keepalive_connections=16))

    async def post(self, path: str, body: dict[str, Any] | None, player: Player | None) -> tuple[dict[str, Any], Any]:
        """POST ``body`` as ``player`` (anonymously if None); the JSON answer and the response, or RuntimeError."""
        headers = {}
        if player is not None:
            headers = {"Cookie": player.cookie, "X-CSRF-Token": player.csrf}
        started = time.perf_counter()
        response = await self.http.post(self.url + path, json=body or {}, headers=headers)
        self.on_request((time.perf_counter() - started) * 1000)
        if response.status_code >= 400:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:200]}")
        data: dict[str, Any] = response.json()
        return data, response

    async def new_guest(self, slot: Slot, index: int) -> Player:
        """A new guest account, seated as player ``index`` of ``slot``."""
        _, response = await self.post("/api/guest", None, None)
        return self._seated(slot, index, response)

    async def new_account(self, slot: Slot, index: int) -> Player:
        """A new account (named after the slot and the seat: the level's database is fresh), seated as player
        ``index`` of ``slot``."""
        credentials = {"username": f"rated{slot.index}x{index}", "password": PASSWORD}
        _, response = await self.post("/api/signup", credentials, None)
        return self._seated(slot, index, response)

    @staticmethod
    def _seated(slot: Slot, index: int, response: Any) -> Player:
        """The player signed in by ``response``'s cookies."""
        cookie = SimpleCookie()
        for header in response.headers.get_list("set-cookie"):
            cookie.load(header)
        session, csrf = cookie["nardy_session"].value, cookie["nardy_csrf"].value
        return Player(slot, index, f"nardy_session={session}; nardy_csrf={csrf}", csrf)

    async def open_table(self, slot: Slot, *, rated: bool = False) -> str:
        """A new table of the slot's variant, match length 1, opened by its first player and joined by the other;
        ``rated`` with :data:`RATED_CLOCK`."""
        creator = slot.players[0]
        body: dict[str, Any] = {"variant": slot.variant, "match_length": 1, "opponent": "human"}
        if rated:
            body |= {"rated": True, **RATED_CLOCK}
        if slot.computer is not None:
            body |= {"opponent": "computer", "bot_level": slot.computer}
        data, _ = await self.post("/api/tables", body, creator)
        table_id: str = data["table"]["table"]
        for joiner in slot.players[1:]:
            await self.post(f"/api/tables/{table_id}/join", {}, joiner)
        return table_id

    async def close(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()
