"""Logs as one JSON object a line (``NARDY_LOG_FORMAT=json``), for a log collector to read without patterns.

Each line holds ``time`` (UTC, ISO 8601, milliseconds), ``level``,
``logger`` and ``message``; ``request_id``, ``user_id`` and ``table_id``
where the line is about them (:mod:`nardy.server.runtime.log_context`);
``exception`` with the traceback of an error; and for uvicorn's access lines
``client``, ``method``, ``path`` and ``status``. :func:`log_config` is the
configuration uvicorn applies at start: every logger, uvicorn's own
included, writes through one handler to standard error.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from uvicorn.config import LOGGING_CONFIG

from nardy.server.runtime.log_context import fields

_ACCESS_LOGGER = "uvicorn.access"
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")
"""uvicorn's access line has these arguments, in this order."""


class JsonFormatter(logging.Formatter):
    """One log record as one line of JSON (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **fields(),
        }
        if record.name == _ACCESS_LOGGER and isinstance(record.args, tuple) and len(record.args) == len(_ACCESS_FIELDS):
            line.update(zip(_ACCESS_FIELDS, record.args, strict=True))
            del line["http_version"]
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def log_config(log_format: str) -> dict[str, Any]:
    """uvicorn's ``log_config`` for ``NARDY_LOG_FORMAT``: JSON lines, or uvicorn's own text lines for ``text``."""
    if log_format != "json":
        return LOGGING_CONFIG
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["json"], "level": "INFO"},
        "loggers": {
            "uvicorn": {"handlers": [], "level": "INFO", "propagate": True},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": [], "level": "INFO", "propagate": True},
        },
    }
