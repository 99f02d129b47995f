// Leaderboards (#/ratings): the top players of each variant family, with the provisional mark, and the coins board.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, errorText } from "./api.js";
import { showCoinsBoard } from "./coins.js";
import { familyName } from "./names.js";
import { variants } from "./variants.js";

export function mountLeaderboard(view) {
  // a tab per family the variants' ratings are kept in (in the order of the variants), then the coins
  const families = [...new Set(variants().map((v) => v.family))];
  const FAMILIES = [...families.map((family) => [family, () => familyName(family)]), ["coins", () => t("coins.title")]];
  const board = h("div", { class: "card", id: "leaderboard" });
  const tabs = FAMILIES.map(([family, name]) =>
    h("button", { type: "button", "data-family": family, onclick: () => show(family) }, name()));
  fill(view, h("section", { class: "page leaderboard" },
    h("h1", {}, t("ratings.title")), h("div", { class: "row tabs", role: "tablist" }, tabs), board));

  async function show(family) {
    for (const tab of tabs) tab.classList.toggle("active", tab.dataset.family === family);
    if (family === "coins") {
      showCoinsBoard(board);
      return;
    }
    fill(board, h("p", {}, t("common.loading")));
    try {
      const data = await get(`/api/ratings/${family}`);
      fill(board, data.players.length === 0
        ? h("p", { class: "hint" }, t("ratings.empty"))
        : scrollable(h("table", {},
          h("thead", {}, h("tr", {},
            h("th", {}, "#"), h("th", {}, t("ratings.player")), h("th", {}, t("ratings.rating")),
            h("th", {}, t("ratings.matches")))),
          h("tbody", {}, data.players.map((row) => h("tr", {},
            h("td", {}, String(row.rank)),
            h("td", {}, h("a", { href: `#/profile/${encodeURIComponent(row.username)}` }, row.username)),
            h("td", {}, String(Math.round(row.rating)),
              row.provisional ? h("span", { class: "provisional" }, ` (${t("profile.provisional")})`) : null),
            h("td", {}, String(row.matches))))))));
    } catch (error) {
      fill(board, h("p", { class: "error" }, errorText(error)));
    }
  }

  show(FAMILIES[0][0]);
  return () => {};
}
