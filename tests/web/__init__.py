"""Tests of the browser client ``nardy/web`` through chromium, against live servers."""
