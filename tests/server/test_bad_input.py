"""Bad input is a clear 4xx, never a 500.

Two kinds of input failed the answer instead of being refused: a lone
surrogate in a JSON body (``{"username": "\\ud800"}``), which the 422 answer
repeated and UTF-8 could not write, and match files nested deeper than the
readers' recursion (an SGF of nested ``(;``, a record's JSON nested 100,000
deep).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

Json = dict[str, Any]
LONE_SURROGATE = "\ud800"


def json_body_routes(spec: Json) -> Iterator[tuple[str, str, Json]]:
    """(method, path, body schema) of every route of ``spec`` that takes a JSON body."""
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                yield method.upper(), path, content["application/json"]["schema"]


def fields_of(schema: Json, components: Json) -> set[str]:
    """The property names ``schema`` (a reference, or any of a union) names."""
    if "$ref" in schema:
        return fields_of(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    names = set(schema.get("properties", {}))
    for option in schema.get("anyOf", ()):
        names |= fields_of(option, components)
    return names


def surrogate_body(schema: Json, components: Json) -> bytes:
    """A JSON object with a lone surrogate as every field the schema names, and as one more key and its value."""
    body = {name: LONE_SURROGATE for name in fields_of(schema, components)} | {LONE_SURROGATE: LONE_SURROGATE}
    return json.dumps(body).encode()  # ASCII, with the surrogate escaped: what a browser may send


def answering_client(server: Any, cookies_from: Any) -> TestClient:
    """A client of ``server`` that gets a 500 as an answer instead of the server's exception, with those cookies."""
    client = TestClient(server.app, raise_server_exceptions=False)
    client.portal = server.client.portal
    client.cookies = cookies_from.client.cookies
    return client


@pytest.mark.parametrize("who", ["an account", "a visitor"])
def test_no_route_taking_json_answers_a_lone_surrogate_with_a_500(game_server: Any, who: str) -> None:
    spec = game_server.client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    person = game_server.player(connect=False, sign_up=who == "an account")
    client = answering_client(game_server, person)
    routes = list(json_body_routes(spec))
    assert len(routes) >= 10, routes
    answers = {}
    for method, path, schema in routes:
        url = path.replace("{", "").replace("}", "")  # any id: the body is refused before the id is looked up
        response = client.request(method, url, content=surrogate_body(schema, components),
                                  headers={**person.csrf(), "Content-Type": "application/json"})
        answers[f"{method} {path}"] = response.status_code
        if response.status_code == 422:
            repeated = json.dumps(response.json())
            assert "\\ufffd" in repeated or "string_unicode" in repeated, (path, response.text)
    assert {route: code for route, code in answers.items() if not 400 <= code < 500} == {}


def test_the_refusal_names_the_field_and_shows_the_surrogate_replaced(game_server: Any) -> None:
    client = answering_client(game_server, game_server.player(connect=False, sign_up=False))
    response = client.post("/api/signup", content=b'{"username": "ann\\ud800", "password": "correct horse battery"}',
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "username"]
    assert problem["input"] == "ann\ufffd"


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("deep.sgf", "(;" * 400_000, "nested more than"),
        ("deep.sgf", "(;" * 200_000 + ")" * 200_000, "nested more than"),
        ("deep.json", '{"games":' + "[" * 100_000 + "]" * 100_000 + "}", "nests too deep"),
        ("deep.json", '{"games":' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}", "nests too deep"),
    ],
)
def test_a_match_file_nested_too_deep_is_refused_with_the_reason(game_server: Any, name: str, text: str, reason: str) -> None:
    alice = game_server.player(connect=False)
    client = answering_client(game_server, alice)
    response = client.post("/api/imports", json={"name": name, "text": text}, headers=alice.csrf())
    assert response.status_code == 422, response.text[:300]
    assert reason in response.json()["detail"]
    assert client.get("/api/imports").json()["imports"] == []
