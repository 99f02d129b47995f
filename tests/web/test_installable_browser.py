"""The site installs as an app: a manifest with icons, a service worker that caches the static client under
the deployed version, and an Install button where the browser offers to install; all within the page's
Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.web.browser_client import Client
from tests.web.test_csp_browser import RECORD_VIOLATIONS, violations
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]

OFFER_INSTALL = """() => {
  window.__prompted = 0;
  const offer = new Event("beforeinstallprompt", { cancelable: true });
  offer.prompt = () => { window.__prompted += 1; return Promise.resolve(); };
  window.dispatchEvent(offer);
}"""


def test_a_manifest_icons_and_a_service_worker_caching_the_client(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.page.add_init_script(RECORD_VIOLATIONS)
    response: Any = person.page.goto(f"{web_server.url}/#/")
    policy = response.headers["content-security-policy"]
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy
    person.page.wait_for_selector("[data-action=quick-play]")

    manifest_href = person.page.get_attribute("link[rel=manifest]", "href")
    manifest = httpx.get(f"{web_server.url}/{manifest_href}").json()
    assert manifest["display"] == "standalone" and manifest["start_url"]
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes and any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        answer = httpx.get(f"{web_server.url}/{icon['src']}")
        assert answer.status_code == 200 and answer.headers["content-type"] == icon["type"], icon

    worker = httpx.get(f"{web_server.url}/sw.js")
    assert worker.status_code == 200 and "javascript" in worker.headers["content-type"]
    assert worker.headers["cache-control"] == "no-cache"
    version = worker.text.split('const VERSION = "', 1)[1].split('"', 1)[0]
    assert version != "dev"

    # the worker installs, takes the page over and keeps the client in the cache named after the version
    person.page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=20_000)
    cached: list[str] = person.page.evaluate("""async (name) => {
        const cache = await caches.open(name);
        return (await cache.keys()).map((request) => new URL(request.url).pathname);
    }""", f"nardy-static-{version}")
    assert "/js/app.js" in cached and "/css/app.css" in cached and "/" in cached and "/i18n/en.json" in cached
    person.page.reload()
    person.page.wait_for_selector("[data-action=quick-play]")

    # the browser offers to install: the header shows Install, which opens the browser's prompt once
    install = person.page.locator("[data-action=install-app]")
    assert install.is_hidden()
    person.page.evaluate(OFFER_INSTALL)
    install.click()
    assert person.page.evaluate("window.__prompted") == 1
    assert install.is_hidden()
    assert violations(person) == []
