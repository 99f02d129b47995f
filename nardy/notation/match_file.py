"""Reading a match file of any kind nardy reads: a table's record (JSON), a .mat or an SGF file.

The CLI's ``nardy analyze`` and the server's imports (``POST /api/imports``)
both take a file whose kind they are not told; :func:`read_match_file`
knows it by the file's name, else by how the text begins.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath

from nardy.notation.errors import NotationError
from nardy.notation.matfile import transcript_from_mat
from nardy.notation.sgf import transcript_from_sgf
from nardy.notation.transcript import Transcript, replay, transcript_from_record

_MAT_HEADER = re.compile(r"\d+ point match")


def read_match_file(text: str, name: str = "") -> Transcript:
    """The match in ``text``, read as its file ``name``'s extension says, else as its beginning shows.

    ``.json`` or ``{``: a table record (``GET /api/tables/{id}/record``);
    ``.sgf`` or ``(;``: SGF; ``.mat``/``.txt`` or an ``N point match``
    header: a Jellyfish .mat file. Every kind is played through the rules
    (the .mat and SGF readers as they read, a record once read), so what
    comes back replays to its end. NotationError names what cannot be read
    or played.
    """
    suffix = PurePath(name).suffix.lower()
    head = text.lstrip("\ufeff \t\r\n")
    if suffix == ".json" or head.startswith("{"):
        return _from_json(text)
    if suffix == ".sgf" or head.startswith("(;"):
        return transcript_from_sgf(text)
    if suffix in (".mat", ".txt") or _MAT_HEADER.search(text[:2000]):
        return transcript_from_mat(text)
    raise NotationError(f"{name or 'the file'} is neither a table record (.json) nor a .mat or SGF match file")


def _from_json(text: str) -> Transcript:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotationError(f"the record is not valid JSON: {error.msg} at character {error.pos}") from None
    except RecursionError:  # the decoder refuses nesting deeper than the interpreter's recursion limit
        raise NotationError("the record is not a table record: its JSON nests too deep to read") from None
    if not isinstance(record, dict):
        raise NotationError("a table record is a JSON object")
    transcript = transcript_from_record(record)
    for _ in replay(transcript):
        pass
    return transcript
