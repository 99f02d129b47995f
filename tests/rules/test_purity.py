"""nardy.rules is pure: it imports nothing but the standard library and itself."""

import ast
import sys
from pathlib import Path

import nardy.rules

RULES_DIR = Path(nardy.rules.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_rules_imports_only_the_standard_library() -> None:
    """DEVELOPERS.md: «the package nardy.rules is pure (no I/O, no globals)»; issue 2:
    «nardy.rules imports only the standard library; a test proves it»."""
    foreign = {}
    for path in sorted(RULES_DIR.rglob("*.py")):
        for module in _imported_modules(path):
            top = module.split(".")[0]
            allowed = top in sys.stdlib_module_names or module.startswith("nardy.rules")
            if not allowed:
                foreign[str(path.relative_to(RULES_DIR))] = module
    assert foreign == {}


def test_rules_does_no_io() -> None:
    """No file, network, process or clock access anywhere in the rules."""
    banned = {"os", "io", "socket", "subprocess", "time", "datetime", "random", "secrets", "pathlib", "shutil"}
    used = {
        str(path.relative_to(RULES_DIR)): module
        for path in RULES_DIR.rglob("*.py")
        for module in _imported_modules(path)
        if module.split(".")[0] in banned
    }
    assert used == {}
    calls = {
        str(path.relative_to(RULES_DIR)): node.func.id
        for path in RULES_DIR.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("open", "print", "input")
    }
    assert calls == {}
