// The service worker: keeps the static client (the page, scripts, styles, pictures, translations) in a cache
// named after the client's version, so the site opens offline and loads at once; the server answers /sw.js
// with that version and the list of files filled in (nardy/server/api/service_worker.py), so a deploy
// changes this script, the browser installs the new worker, and it caches the new files and drops the old.
// The API and the WebSocket always go to the network.
const VERSION = "dev";
const FILES = [];
const CACHE = `nardy-static-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(FILES.map((file) => new Request(file, { cache: "reload" }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("nardy-static-") && name !== CACHE)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

/** The page itself from the network first (a deploy shows at once), the cache when offline; files from the cache. */
self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname === "/ws" || url.pathname === "/sw.js") return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(() => caches.match("./", { cacheName: CACHE })));
    return;
  }
  event.respondWith(caches.match(request, { cacheName: CACHE, ignoreSearch: true })
    .then((cached) => cached || fetch(request)));
});

/** A click on a "your turn" notification brings the site's window forward, opening the table it names. */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = (event.notification.data && event.notification.data.url) || "./";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
    const open = windows[0];
    if (open) return open.focus().then((client) => client && client.navigate ? client.navigate(target) : client);
    return self.clients.openWindow(target);
  }));
});
