"""``nardy.notation`` depends on ``nardy.rules`` and the standard library only (STYLE.md)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nardy.notation

PACKAGE = Path(nardy.notation.__file__).parent


def imported_modules(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_only_the_rules_and_the_standard_library() -> None:
    for source in sorted(PACKAGE.glob("*.py")):
        for module in imported_modules(source):
            top = module.split(".")[0]
            allowed = top in sys.stdlib_module_names or module.startswith(("nardy.rules", "nardy.notation"))
            assert allowed, f"{source.name} imports {module}"


def test_public_names_are_exported() -> None:
    for name in nardy.notation.__all__:
        assert hasattr(nardy.notation, name), name
