"""The layering holds in the import graph, read from the source of every module of nardy.

Issue 38: «The layering holds in the import graph: rules ← notation ←
bots/store ← server ← cli; no import runs up a layer», and «`api/` and `ws/`
do not import each other; settings import no service; runtime plumbing has
its own package; SQL lives in `nardy.store`». Every import counts: at the top
of a module, inside a function, or for type checking only, since each ties the
importer to what it imports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import nardy

NARDY_DIR = Path(nardy.__file__).parent

PACKAGE_LAYERS = {"nardy.rules": 0, "nardy.notation": 1, "nardy.bots": 2, "nardy.store": 2, "nardy.server": 3,
                  "nardy.cli": 4}
"""Each package's layer: a module imports from its own package and from lower layers only."""

SQLALCHEMY_OUTSIDE_THE_STORE = {
    "sqlalchemy": {"Dialect", "Engine"},
    "sqlalchemy.engine.interfaces": {"DBAPICursor"},
    "sqlalchemy.exc": {"IntegrityError"},
    "sqlalchemy.orm": {"Session", "sessionmaker"},
    "sqlalchemy.pool": {"PoolProxiedConnection"},
}
"""What a module outside nardy.store may take from SQLAlchemy: sessions, engines and errors to pass around and
catch, but nothing that writes a query (``select``, ``func``, ``text``, ``update``...)."""


@dataclass(frozen=True, slots=True)
class Import:
    """One name a module imports: ``module`` is the module it comes from (a submodule where ``name`` is one)."""

    module: str
    name: str | None


def _module_names() -> dict[str, Path]:
    names = {}
    for path in NARDY_DIR.rglob("*.py"):
        parts = path.relative_to(NARDY_DIR.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


MODULES = _module_names()


def _imports(module: str) -> Iterator[Import]:
    """What ``module`` imports, relative imports resolved, ``from package import submodule`` as the submodule."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield Import(submodule, None) if submodule in MODULES else Import(base, alias.name)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _edges(importers: str, imported: str) -> list[str]:
    """Every ``importer -> imported`` import from a module of package ``importers`` into package ``imported``."""
    return sorted({
        f"{module} -> {found.module}"
        for module in MODULES if _within(module, importers)
        for found in _imports(module) if _within(found.module, imported)
    })


def _layer(module: str) -> int | None:
    return next((layer for package, layer in PACKAGE_LAYERS.items() if _within(module, package)), None)


def test_every_module_has_a_layer() -> None:
    """A new top-level package must be given its place in the layers before it can be checked."""
    assert sorted(module for module in MODULES if module != "nardy" and _layer(module) is None) == []


def test_no_import_runs_up_a_layer() -> None:
    """rules ← notation ← bots/store ← server ← cli; bots and store, side by side, import nothing of each other."""
    upward = sorted(
        f"{module} -> {found.module}"
        for module in MODULES if (layer := _layer(module)) is not None
        for found in _imports(module)
        if (other := _layer(found.module)) is not None and (other > layer or other == layer and
                                                            found.module.split(".")[1] != module.split(".")[1])
    )
    assert upward == []


@pytest.mark.parametrize(("importers", "imported"), [
    ("nardy.server.services", "nardy.server.ws"),
    ("nardy.server.services", "nardy.server.api"),
    ("nardy.server.services", "nardy.server.auth"),
    ("nardy.server.services", "nardy.server.app"),
    ("nardy.server.auth", "nardy.server.ws"),
    ("nardy.server.auth", "nardy.server.api"),
    ("nardy.server.ws", "nardy.server.api"),
    ("nardy.server.api", "nardy.server.ws"),
])
def test_the_server_parts_import_only_what_lies_below_them(importers: str, imported: str) -> None:
    """Services know nothing of sockets, routers or sign-in; the sockets and the routers meet only in what both
    build on (the services, ``nardy.server.auth``), never in each other."""
    assert _edges(importers, imported) == []


def test_settings_import_nothing_of_the_server() -> None:
    """Everything reads the settings, so they import no service, nor any other part of the server."""
    assert _edges("nardy.server.settings", "nardy.server") == []


def test_the_runtime_plumbing_imports_nothing_else_of_the_server() -> None:
    """nardy.server.runtime (collector, descriptors, header deadline, periodic work) sits below the services."""
    outside = [edge for edge in _edges("nardy.server.runtime", "nardy.server")
               if not _within(edge.partition(" -> ")[2], "nardy.server.runtime")]
    assert outside == []


def test_only_the_store_writes_sql() -> None:
    """Outside nardy.store a module may hold a session or catch a database error, but builds no query."""
    builders = sorted(
        f"{module} -> {found.module}.{found.name}" if found.name else f"{module} -> {found.module}"
        for module in MODULES if not _within(module, "nardy.store")
        for found in _imports(module) if _within(found.module, "sqlalchemy")
        if found.name not in SQLALCHEMY_OUTSIDE_THE_STORE.get(found.module, set())
    )
    assert builders == []


def test_only_the_socket_layer_encodes_messages() -> None:
    """«Only the socket layer knows the wire»: no service imports a JSON encoder or the wire's modules."""
    encoders = sorted(
        f"{module} -> {found.module}"
        for module in MODULES if _within(module, "nardy.server.services")
        for found in _imports(module)
        if found.module in ("json", "orjson", "nardy.server.ws.wire", "nardy.server.ws.view_changes")
    )
    assert encoders == []


def test_the_view_changes_are_the_socket_layers_alone() -> None:
    """«ws/ owns every message shape, the view changes»: only ``nardy.server.ws`` turns a view into the changes a
    message carries; the services hand over whole views, and nothing else of nardy reaches for the changes."""
    outside = [edge for edge in _edges("nardy", "nardy.server.ws.view_changes")
               if not _within(edge.partition(" -> ")[0], "nardy.server.ws")]
    assert outside == []


def test_the_command_line_uses_no_server_service() -> None:
    """«cli imports no server service»: what the command line computes (a record's dice checked against its
    revealed seeds, ...) lives below the server, where the server uses it too."""
    assert _edges("nardy.cli", "nardy.server.services") == []
