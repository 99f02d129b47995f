"""Every whole number the API takes has an upper bound: one too large is a 422, never a 500.

Found by fuzzing the API from its schema (schemathesis): a lobby page offset
of 10^24 and a chouette clock of 10^21 seconds reached SQLite's driver and
failed there with a 500 ("Python int too large to convert to SQLite INTEGER").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from nardy.server.api.bounds import LARGEST_ROW_NUMBER, LONGEST_CLOCK_SECONDS
from tests.databases import database_url, postgresql_url, sqlite_url  # noqa: F401 (fixtures)

Json = dict[str, Any]


def integers(schema: Json, components: Json, where: str, seen: frozenset[str] = frozenset()) -> Iterator[tuple[str, Json]]:
    """Every integer in ``schema`` (following references), with where it is."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            yield from integers(components[name], components, f"{where} > {name}", seen | {name})
        return
    if schema.get("type") == "integer":
        yield where, schema
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key, ()):
            yield from integers(option, components, where, seen)
    for name, field in schema.get("properties", {}).items():
        yield from integers(field, components, f"{where}.{name}", seen)
    if "items" in schema:
        yield from integers(schema["items"], components, f"{where}[]", seen)


def test_no_integer_in_the_api_is_unbounded(game_server: Any) -> None:
    spec = game_server.client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    unbounded = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            found = [integers(p["schema"], components, f"{method.upper()} {path} ?{p['name']}")
                     for p in operation.get("parameters", [])]
            found += [integers(c["schema"], components, f"{method.upper()} {path} body")
                      for c in operation.get("requestBody", {}).get("content", {}).values()]
            unbounded += [where for each in found for where, schema in each
                          if "maximum" not in schema and "exclusiveMaximum" not in schema and "enum" not in schema]
    assert unbounded == []


def test_a_page_past_any_row_is_empty_and_one_further_is_refused(
    database_url: str, make_game_server: Callable[..., Any],  # noqa: F811 (the database outlives the server)
) -> None:
    server = make_game_server(database_url=database_url)
    for path in ("/api/lobby", "/api/tables"):
        last = server.client.get(path, params={"offset": LARGEST_ROW_NUMBER})
        assert last.status_code == 200, last.text
        assert last.json()["playing"] == []
        assert server.client.get(path, params={"offset": 10**24}).status_code == 422
    alice = server.player(connect=False)
    assert alice.client.get("/api/coins", params={"before": LARGEST_ROW_NUMBER}).status_code == 200
    assert alice.client.get("/api/coins", params={"before": 10**24}).status_code == 422


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/tables", {"variant": "backgammon", "move_seconds": LONGEST_CLOCK_SECONDS + 1}),
        ("/api/tables", {"variant": "backgammon", "delay_seconds": 10**21, "bank_seconds_per_point": 60}),
        ("/api/tables", {"variant": "backgammon", "correspondence_days": 10**21}),
        ("/api/chouettes", {"move_seconds": 629_681_343_561_196_109_824}),
        ("/api/matchmaking/join", {"variant": "backgammon", "delay_seconds": 10**21}),
    ],
)
def test_a_clock_longer_than_a_month_is_refused_and_nothing_is_made(game_server: Any, path: str, body: Json) -> None:
    """The testing environment takes clocks off the offered ones, but none longer than a month."""
    alice = game_server.player(connect=False)
    reply = alice.post(path, body)
    assert reply.status_code == 422, reply.text
    assert alice.client.get("/api/me/tables").json()["tables"] == []
