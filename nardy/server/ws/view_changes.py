"""A table's view sent as the parts that changed since the previous one, and a client's way to apply them.

After every action each watcher used to get the table's whole view: most of
it (the options, the seats and their seeds, the commitments, the chat
settings) is the same from one action to the next, and every byte of it was
encoded, compressed per connection and sent per watcher. A live ``events``
message now carries ``changes`` instead of ``state`` when the view it follows
(``from_version - 1``) is the one this process published last: a list of
``[key, value]`` (a top-level key of the view replaced) and ``[key, sub,
value]`` (a key of a top-level object replaced, e.g. ``["game", "boards",
[...]]``). Views are compared two levels deep: deeper, a changed value is
sent whole. Where the view's top-level keys changed, or this process did not
publish the previous version (a restart, another process acted), the message
carries the whole ``state`` as before.

Only the encoded parts of the last view are kept per table, as bytes, which
the garbage collector does not track.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
_JOIN = b"\x00"
"""Joins the encoded parts of a view: JSON text never holds a raw NUL."""
_SUB = "\x00"
"""Joins a top-level key and a key of its object into a part's name (objects whose keys hold one stay whole)."""

Change = list[Any]
"""``[key, value]`` or ``[key, sub, value]``: one replaced part of a view."""

Grouped = dict[str, bytes | dict[str, bytes]]
"""A view's parts per top-level key: its JSON, or its object's keys' JSON."""


@dataclass(frozen=True, slots=True)
class ShownView:
    """The view last published for a table: its version, its parts' names and their JSON.

    A name is a top-level key, or ``key NUL sub`` for each key of a non-empty
    object whose keys are non-empty strings. The parts are kept joined in one bytes object,
    not one object each: thousands of small objects that outlive the many
    made and freed around them keep the allocator's arenas from being given
    back, and the server's memory grew with them.
    """

    version: int
    names: tuple[str, ...]
    encoded: bytes


def show(view: dict[str, Any], version: int, since: ShownView | None) -> tuple[ShownView, list[Change] | None]:
    """``view`` (at ``version``) as shown, and the changes from ``since`` to it, each value already encoded (an
    :class:`orjson.Fragment`); the changes are None without ``since`` or when the view's top-level keys changed,
    so that only the whole view will do."""
    names: list[str] = []
    values: list[bytes] = []
    for key, value in view.items():
        if type(value) is dict and value and all(type(sub) is str and sub and _SUB not in sub for sub in value):
            for sub, inner in value.items():
                names.append(key + _SUB + sub)
                values.append(orjson.dumps(inner, option=_OPTIONS))
        else:
            names.append(key)
            values.append(orjson.dumps(value, option=_OPTIONS))
    shape = tuple(names)
    if since is not None and since.names == shape:
        shape = since.names  # one tuple for the table's life, not one per action
    shown = ShownView(version, shape, _JOIN.join(values))
    if since is None:
        return shown, None
    before = since.encoded.split(_JOIN)
    if since.names is shape:
        return shown, [
            [*name.split(_SUB), orjson.Fragment(now)]
            for name, then, now in zip(shape, before, values) if then != now
        ]
    return shown, _reshaped(_grouped(since.names, before), _grouped(shape, values))


def _grouped(names: tuple[str, ...], values: list[bytes]) -> Grouped:
    """The parts per top-level key."""
    grouped: Grouped = {}
    for name, value in zip(names, values):
        key, _, sub = name.partition(_SUB)
        if sub:
            inner = grouped.setdefault(key, {})
            assert isinstance(inner, dict)
            inner[sub] = value
        else:
            grouped[key] = value
    return grouped


def _reshaped(before: Grouped, after: Grouped) -> list[Change] | None:
    """The changes between two views whose parts are named differently: an object that appeared, went or changed
    its keys is replaced whole; None when the top-level keys changed."""
    if before.keys() != after.keys():
        return None
    changes: list[Change] = []
    for key, now in after.items():
        then = before[key]
        if then == now:
            continue
        if isinstance(now, dict) and isinstance(then, dict) and now.keys() == then.keys():
            changes.extend([key, sub, orjson.Fragment(value)] for sub, value in now.items() if then[sub] != value)
        else:
            changes.append([key, orjson.Fragment(_whole(now))])
    return changes


def _whole(part: bytes | dict[str, bytes]) -> bytes:
    """The JSON of a top-level value from its parts."""
    if isinstance(part, bytes):
        return part
    return b"{" + b",".join(orjson.dumps(sub) + b":" + value for sub, value in part.items()) + b"}"


def apply_changes(state: dict[str, Any], changes: list[Change]) -> dict[str, Any]:
    """The view ``state`` after ``changes`` (a new object; ``state`` is left as it was).

    For clients written in Python (the tests, the load benchmark); the browser's
    ``socket.js`` does the same.
    """
    result = copy.copy(state)
    for change in changes:
        if len(change) == 2:
            result[change[0]] = change[1]
        else:
            key, sub, value = change
            inner = dict(result[key])
            inner[sub] = value
            result[key] = inner
    return result
