// The site's statistics (#/statistics), public: wins by colour per variant over every finished game (as on 003's
// statistics page), and the dice of every roll on the site against fair dice, with their chi-square.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, errorText } from "./api.js";
import { variantName } from "./names.js";
import { renderDice } from "./profile.js";

export function mountStatistics(view) {
  const colours = h("div", { class: "card", id: "site-colours" }, h("p", {}, t("common.loading")));
  const dice = h("div", { class: "card", id: "site-dice" }, h("p", {}, t("common.loading")));
  fill(view, h("section", { class: "page statistics" },
    h("h1", {}, t("statistics.title")),
    h("div", { class: "profile-grid" }, colours, dice)));
  (async () => {
    try {
      renderSiteColours(colours, await get("/api/stats/colours"));
    } catch (error) {
      fill(colours, h("p", { class: "error" }, errorText(error)));
    }
  })();
  (async () => {
    try {
      renderDice(dice, (await get("/api/stats/dice")).statistics, t("statistics.dice"));
    } catch (error) {
      fill(dice, h("p", { class: "error" }, errorText(error)));
    }
  })();
  return () => {};
}

function renderSiteColours(el, data) {
  const variants = Object.entries(data.variants || {});
  fill(el,
    h("h2", {}, t("statistics.colours")),
    variants.length
      ? scrollable(h("table", { class: "data" },
        h("thead", {}, h("tr", {}, [t("lobby.variant"), t("profile.white"), t("profile.black")].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, variants.map(([variant, counts]) => {
          const total = counts.white + counts.black || 1;
          const pct = (n) => `${n} (${((100 * n) / total).toFixed(1)} %)`;
          return h("tr", { "data-variant": variant }, h("td", {}, variantName(variant)),
            h("td", { "data-colour": "white" }, pct(counts.white)), h("td", { "data-colour": "black" }, pct(counts.black)));
        }))))
      : h("p", { class: "hint" }, t("profile.no_colour_stats")));
}
