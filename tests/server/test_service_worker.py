"""The service worker's version follows the static client: a deploy that changes any file changes /sw.js."""

from __future__ import annotations

from pathlib import Path

from nardy.server.api.service_worker import WEB_DIR, WORKER, client_build, worker_script


def test_the_version_changes_with_any_static_file(tmp_path: Path) -> None:
    (tmp_path / "js").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html>")
    (tmp_path / "js" / "app.js").write_text("export {};")
    (tmp_path / "notes.txt").write_text("not part of the client")
    first = client_build(tmp_path)
    assert first.files == ("./", "index.html", "js/app.js")
    assert client_build(tmp_path) == first, "nothing changed: the same version"
    (tmp_path / "js" / "app.js").write_text("export const deployed = 2;")
    assert client_build(tmp_path).version != first.version


def test_the_worker_is_stamped_with_the_version_and_its_files() -> None:
    build = client_build()
    script = worker_script(build, (WEB_DIR / WORKER).read_text(encoding="utf-8"))
    assert f'const VERSION = "{build.version}";' in script
    assert '"./"' in script and '"js/app.js"' in script and '"manifest.json"' in script and '"img/icon-192.png"' in script
    assert f'"{WORKER}"' not in script, "the worker itself is never cached"
