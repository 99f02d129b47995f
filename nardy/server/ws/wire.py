"""Messages to clients as JSON text.

Encoded with orjson: a table's view (or its changes) goes out after every
action, and the standard library's encoder was about a twentieth of the
server's time per action under load (benchmarks/RESULTS.md).
"""

from __future__ import annotations

from typing import Any

import orjson


def encode(message: dict[str, Any]) -> str:
    """``message`` as compact JSON text (keys that are not strings, such as ints, become strings as in
    :func:`json.dumps`)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
