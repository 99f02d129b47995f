"""``GET /api/session``: who the browser is signed in as, answered 200 to a visitor too (no user).

The page asks it on every load; ``/api/me`` keeps refusing a visitor (401)
for whoever needs someone signed in.
"""

from __future__ import annotations

from typing import Any


def test_a_visitor_is_answered_with_no_user(game_server: Any) -> None:
    visitor = game_server.new_client()
    response = visitor.get("/api/session")
    assert response.status_code == 200, response.text
    assert response.json() == {"user": None}
    assert "set-cookie" not in response.headers, "asking makes no guest"
    assert visitor.get("/api/me").status_code == 401


def test_a_guest_and_an_account_are_named_as_api_me_names_them(game_server: Any) -> None:
    for person in (game_server.guest(connect=False), game_server.player(connect=False)):
        response = person.client.get("/api/session")
        assert response.status_code == 200
        assert response.json() == person.client.get("/api/me").json() == {"user": person.user}


def test_after_logout_the_browser_is_a_visitor_again(game_server: Any) -> None:
    alice = game_server.player(connect=False)
    assert alice.post("/api/logout").status_code == 204
    assert alice.client.get("/api/session").json() == {"user": None}
