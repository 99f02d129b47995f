// Installable: the service worker (/sw.js, which caches the static client under the deployed version) and the
// Install button, shown in the header where the browser offers to install the site (beforeinstallprompt).
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Register the service worker; a new version takes over at once (it caches first, then claims the page). */
export function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("sw.js").catch(() => { /* not installable here (e.g. plain http off localhost) */ });
}

/** The Install button in `header`: hidden until the browser offers an install prompt, gone once installed. */
export function offerInstall(header) {
  let offer = null;
  const button = h("button", {
    type: "button", class: "install subtle", "data-action": "install-app", "data-i18n": "app.install", hidden: true,
    onclick: async () => {
      if (!offer) return;
      const prompt = offer;
      offer = null;
      button.hidden = true;
      await prompt.prompt();
    },
  }, t("app.install"));
  header.append(button);
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    offer = event;
    button.hidden = false;
  });
  window.addEventListener("appinstalled", () => {
    offer = null;
    button.hidden = true;
  });
}
