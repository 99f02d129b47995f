// The home page's quick-pairing grid: one tile per pool the server offers (GET /api/matchmaking/pools: a variant,
// a match length and a bank clock), with the number of players waiting in it; one tap joins that pool through the
// "find an opponent" card (matchmaking.js), whose status shows under the grid. Nothing about the pools is decided
// here: the grid is the server's.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get } from "./api.js";
import { variantName, matchLengthName, bankClockName } from "./names.js";

const poolKey = (pool) => [pool.variant, pool.match_length, pool.delay_seconds, pool.bank_seconds_per_point].join(":");

/** The grid's card: `join(pool)` is the matchmaking card's, `status` its status element (placed under the grid). */
export function quickPairingCard({ join, status }) {
  const grid = h("div", { class: "pool-grid", role: "group", "aria-labelledby": "quick-pairing-title" },
    h("p", { class: "hint" }, t("common.loading")));

  function tile(pool) {
    return h("button", {
      type: "button", class: "pool-tile", "data-pool": poolKey(pool), "data-waiting": String(pool.waiting),
      onclick: () => join(pool),
    },
    h("span", { class: "pool-variant" }, variantName(pool.variant)),
    h("span", { class: "pool-length" }, matchLengthName(pool.match_length)),
    h("span", { class: "pool-clock" }, bankClockName(pool.delay_seconds, pool.bank_seconds_per_point)),
    h("span", { class: "pool-waiting" }, t("home.waiting", { n: pool.waiting })));
  }

  async function refresh() {
    try {
      const { pools } = await get("/api/matchmaking/pools");
      fill(grid, pools.map(tile));
    } catch {
      /* the grid keeps what it showed; the next refresh tries again */
    }
  }

  const el = h("section", { class: "card quick-pairing", id: "quick-pairing" },
    h("h2", { id: "quick-pairing-title" }, t("home.quick_pairing")),
    h("p", { class: "hint" }, t("home.quick_pairing_hint")),
    grid, status);
  return { el, refresh };
}
