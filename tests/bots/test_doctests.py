"""The examples in the bots' docstrings run and say what they show (so they cannot go stale)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nardy.bots

MODULES = sorted(f"nardy.bots.{info.name}" for info in pkgutil.iter_modules(nardy.bots.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    failures, _ = doctest.testmod(importlib.import_module(name))
    assert failures == 0
