"""A match as a file to download: a Jellyfish/gnubg .mat or a gnubg SGF file (docs/formats.md)."""

from __future__ import annotations

from typing import Literal

from fastapi import HTTPException, Response

from nardy.notation import NotationError, transcript_to_mat, transcript_to_sgf
from nardy.notation.transcript import Transcript

MatchFormat = Literal["mat", "sgf"]

_MEDIA = {"mat": "text/plain; charset=utf-8", "sgf": "application/x-go-sgf; charset=utf-8"}


def download(transcript: Transcript, fmt: MatchFormat, stem: str) -> Response:
    """``transcript`` written as ``fmt``, as an attachment named ``stem.fmt``; 422 when the format cannot hold it
    (SGF holds the short board only)."""
    try:
        text = transcript_to_mat(transcript) if fmt == "mat" else transcript_to_sgf(transcript)
    except NotationError as error:
        raise HTTPException(422, str(error)) from None
    disposition = f'attachment; filename="{stem}.{fmt}"'
    return Response(text, media_type=_MEDIA[fmt], headers={"Content-Disposition": disposition})
