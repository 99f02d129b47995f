// The home page's next tournaments (GET /api/tournaments): those taking registrations, soonest first, then those
// under way, each a link to its page.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get } from "./api.js";
import { variantName, formatDate } from "./names.js";

const SHOWN = 4;

function row(tournament) {
  const when = tournament.status === "running" ? t("tournament.running")
    : tournament.starts_at ? t("tournament.starts_at", { time: formatDate(tournament.starts_at) })
      : t("tournament.starts_when_full", { n: tournament.max_players });
  return h("li", { "data-tournament": tournament.id },
    h("a", { href: `#/tournament/${encodeURIComponent(tournament.id)}`, class: "next-tournament" },
      h("span", { class: "name" }, tournament.name),
      h("span", { class: "hint" }, `${variantName(tournament.variant)} · ${t("tournament.entries", { n: tournament.players, max: tournament.max_players })} · ${when}`)));
}

export function nextTournamentsCard() {
  const list = h("ul", { class: "next-tournaments" }, h("li", { class: "hint" }, t("common.loading")));
  async function refresh() {
    try {
      const { upcoming, running } = await get("/api/tournaments");
      const soonest = [...upcoming].sort((a, b) => String(a.starts_at || "~").localeCompare(String(b.starts_at || "~")));
      const shown = [...soonest, ...running].slice(0, SHOWN);
      fill(list, shown.length ? shown.map(row) : h("li", { class: "hint" }, t("home.no_tournaments")));
    } catch {
      /* kept as it was */
    }
  }
  const el = h("section", { class: "card", id: "next-tournaments" },
    h("h2", {}, t("home.next_tournaments")), list,
    h("a", { href: "#/tournaments" }, t("home.all_tournaments")));
  return { el, refresh };
}
