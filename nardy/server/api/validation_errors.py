"""The 422 answer to a request the schema refuses, written so that any input can be repeated in it.

FastAPI's own answer repeats each refused input as it came. A JSON string
may hold a lone surrogate (``"\\ud800"``), which Python reads but UTF-8
cannot write, so repeating it failed the answer itself with a 500. Here each
lone surrogate of what is repeated becomes U+FFFD, the replacement
character; everything else is answered as FastAPI answers it.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.responses import JSONResponse, Response

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point: JSON's decoder joins each pair into one character, so any left is alone."""


def writable(value: Any) -> Any:
    """``value`` (JSON-like) with each lone surrogate of its strings, keys included, replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {writable(key): writable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [writable(item) for item in value]
    return value


async def answer_refused_request(request: Request, error: Exception) -> Response:
    """422 listing what the schema refused, as FastAPI does, with what it repeats writable as UTF-8."""
    assert isinstance(error, RequestValidationError)
    return JSONResponse(status_code=422, content={"detail": writable(jsonable_encoder(error.errors()))})


def install(app: FastAPI) -> None:
    """Answer ``app``'s refused requests with :func:`answer_refused_request`."""
    app.add_exception_handler(RequestValidationError, answer_refused_request)
