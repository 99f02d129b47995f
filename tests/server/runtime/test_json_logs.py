"""Logs as one JSON object a line (``NARDY_LOG_FORMAT=json``, docs/operations.md, *Logs*).

The issue: «Logs as one JSON object a line when configured (request id, user id, table id on every line about
them).»
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from nardy.server.runtime.json_logs import JsonFormatter
from nardy.server.runtime.log_context import RequestIds, about_table, note_user
from tests.server.live_server import HttpUser, LiveServer, unique_name


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger writing through the JSON formatter into a string."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("nardy.tests.json_logs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield logger, stream
    finally:
        logger.removeHandler(handler)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def run_request(app: Any, headers: list[tuple[bytes, bytes]]) -> None:
    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        pass

    asyncio.run(RequestIds(app)({"type": "http", "headers": headers}, receive, send))


def test_a_line_names_the_request_its_user_and_the_table(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        logger.info("before sign-in")
        note_user(7)
        with about_table("t-1"):
            logger.warning("about %s", "a table")
        logger.info("after")

    run_request(app, [(b"x-request-id", b"proxy-id.42")])
    logger.info("outside any request")
    before, inside, after, outside = lines(stream)
    assert before == {"time": before["time"], "level": "INFO", "logger": "nardy.tests.json_logs",
                      "message": "before sign-in", "request_id": "proxy-id.42"}
    assert before["time"].endswith("+00:00")
    assert (inside["message"], inside["level"], inside["user_id"], inside["table_id"]) == (
        "about a table", "WARNING", 7, "t-1")
    assert (after["user_id"], "table_id" in after) == (7, False)
    assert set(outside) == {"time", "level", "logger", "message"}


def test_a_request_id_that_could_forge_a_line_is_replaced(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        logger.info("seen")

    run_request(app, [(b"x-request-id", b'x" "level": "ERROR')])
    run_request(app, [])
    forged, missing = lines(stream)
    for line in (forged, missing):
        assert len(line["request_id"]) == 16 and line["request_id"].isalnum()
    assert forged["request_id"] != missing["request_id"]


def test_an_error_carries_its_traceback(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured
    try:
        raise RuntimeError("broken")
    except RuntimeError:
        logger.exception("it failed")
    (line,) = lines(stream)
    assert line["level"] == "ERROR" and "RuntimeError: broken" in line["exception"]


def test_a_live_server_writes_json_lines_with_the_signed_in_user(tmp_path: Path) -> None:
    """Every line of the process is JSON, uvicorn's own included; an access line names its request and user."""
    with LiveServer(tmp_path, env={"NARDY_LOG_FORMAT": "json"}) as server:
        user = HttpUser(server.base_url)
        user_id = user.signup(unique_name("logs"))["id"]
        assert user.http.get("/api/me", headers={"X-Request-ID": "trace-me-1"}).status_code == 200
        user.close()
        server.stop()
        text = server.log_text()
    written = [line for line in text.splitlines() if line and not line.startswith("=====")]
    # the test harness runs the server module in a forked process, and Python warns of that before any logging
    assert [line for line in written if not line.startswith("{") and "runpy" not in line] == []
    records = [json.loads(line) for line in written if line.startswith("{")]
    assert any(record["logger"].startswith("uvicorn") for record in records)
    (access,) = [record for record in records if record.get("request_id") == "trace-me-1"]
    assert (access["logger"], access["method"], access["path"], access["status"]) == (
        "uvicorn.access", "GET", "/api/me", 200)
    assert access["user_id"] == user_id
