"""What stops a server at start rather than mid-game: a short-board engine that cannot load."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nardy.bots import sage
from nardy.server.app import create_app
from nardy.server.settings import Settings


def test_a_missing_bgsage_stops_the_start_with_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bgbot_cpp", None)
    sage.engine.cache_clear()
    try:
        app = create_app(Settings(environment="testing", data_dir=tmp_path))
        with pytest.raises(sage.SageUnavailable, match="bgsage is not installed"):
            with TestClient(app):
                pass
    finally:
        monkeypatch.undo()
        sage.engine.cache_clear()
