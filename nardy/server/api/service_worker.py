"""``GET /sw.js``: the browser client's service worker, stamped with the client's version.

The worker (``nardy/web/sw.js``) caches the static client under a cache named
after :attr:`ClientBuild.version`: the package's version and a hash of every
static file. A deploy that changes any file changes the script the browser
fetches when it checks for an update, so the new worker installs, caches the
new files and deletes the old cache. The script is answered with
``Cache-Control: no-cache`` and never cached by the worker itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fastapi import APIRouter
from fastapi.responses import Response

import nardy

router = APIRouter(tags=["client"])

WEB_DIR: Final = Path(__file__).resolve().parents[2] / "web"
WORKER: Final = "sw.js"
CACHED_SUFFIXES: Final = frozenset({".html", ".js", ".css", ".json", ".svg", ".png"})
"""The files of the client the worker keeps: everything the page loads."""


@dataclass(frozen=True, slots=True)
class ClientBuild:
    """The static client as deployed: its version and the files the worker caches (relative URLs, ``./`` the page)."""

    version: str
    files: tuple[str, ...]


_builds: dict[tuple[tuple[str, int, int], ...], ClientBuild] = {}


def client_build(web_dir: Path = WEB_DIR) -> ClientBuild:
    """The client in ``web_dir``: its files and a version that changes whenever any file's content does."""
    paths = sorted(p for p in web_dir.rglob("*") if p.is_file() and p.suffix in CACHED_SUFFIXES)
    signature = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    if signature not in _builds:
        digest = hashlib.sha256(nardy.__version__.encode())
        for path in paths:
            digest.update(path.relative_to(web_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        files = ("./", *(p.relative_to(web_dir).as_posix() for p in paths if p.name != WORKER))
        _builds.clear()
        _builds[signature] = ClientBuild(f"{nardy.__version__}-{digest.hexdigest()[:12]}", files)
    return _builds[signature]


def worker_script(build: ClientBuild, template: str) -> str:
    """The worker's source with its version and file list filled in (the template's ``VERSION``/``FILES`` lines)."""
    files = ", ".join(f'"{name}"' for name in build.files)
    return (template.replace('const VERSION = "dev";', f'const VERSION = "{build.version}";', 1)
            .replace("const FILES = [];", f"const FILES = [{files}];", 1))


@router.get("/sw.js", include_in_schema=False)
def service_worker() -> Response:
    """The service worker of the current client (see the module docstring)."""
    script = worker_script(client_build(), (WEB_DIR / WORKER).read_text(encoding="utf-8"))
    return Response(script, media_type="text/javascript", headers={"Cache-Control": "no-cache"})
