"""Tests of ``nardy.server``: in-process through ``TestClient`` and as live processes."""
