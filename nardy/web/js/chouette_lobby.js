// The lobby's chouette card: create a chouette table, and the list of chouette tables to join or watch.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, get, post, errorText } from "./api.js";
import { currentUser, ensureSignedIn } from "./session.js";
import { timeControlName, playerName, variantName } from "./names.js";
import { variantRules } from "./variants.js";
import { variantOptions } from "./variant_choices.js";

const MOVE_SECONDS = [null, 30, 60, 90, 120];
const MIN_PLAYERS = 3;
const MAX_PLAYERS = 8;

/** The id of a table from a state view (or a {table: view} wrapper). */
export function chouetteId(view) {
  if (!view) return null;
  return typeof view.table === "string" ? view.table : view.table && view.table.table;
}

/** The chouette entries of GET /api/lobby, whatever lists it groups them in. */
function chouetteEntries(lobby) {
  const found = [];
  const seen = new Set();
  const visit = (value) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object") {
      if (value.kind === "chouette" && (value.table || value.id)) {
        const id = value.table || value.id;
        if (!seen.has(id)) { seen.add(id); found.push(value); }
      } else if (!value.kind) Object.values(value).forEach(visit);
    }
  };
  visit(lobby);
  return found;
}

/** GET /api/lobby (docs/chouette.md), or the tables' lobby where a server has no such route. */
async function lobbyData() {
  try {
    return await get("/api/lobby");
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return get("/api/tables");
    throw error;
  }
}

const nameOf = (player) => (player && typeof player === "object" ? player.name || player.username : player);

/** Join chouette `id` (signing in as a guest if needed) and open its page. */
export async function joinChouette(id, { socket, toast, navigate }) {
  try {
    await ensureSignedIn(socket);
    await post(`/api/chouettes/${encodeURIComponent(id)}/join`, {});
    navigate(`#/chouette/${id}`);
  } catch (error) {
    toast(errorText(error), "error");
  }
}

/** The card: {el, refresh()}; the lobby calls refresh on its own timer. */
export function chouetteCard(context) {
  const { socket, toast, navigate } = context;
  const list = h("div", { class: "table-list", id: "chouette-tables" }, h("p", { class: "hint" }, t("common.loading")));

  // the variants the server plays a chouette in (GET /api/variants: `chouette`, decided by the rules)
  const variant = h("select", { name: "variant" }, variantOptions((v) => v.chouette));
  const maxPlayers = h("select", { name: "max_players" },
    Array.from({ length: MAX_PLAYERS - MIN_PLAYERS + 1 }, (_, i) => MIN_PLAYERS + i)
      .map((n) => h("option", { value: String(n) }, String(n))));
  maxPlayers.value = String(MAX_PLAYERS);
  const time = h("select", { name: "move_seconds" },
    MOVE_SECONDS.map((s) => h("option", { value: s ? String(s) : "" }, timeControlName(s))));
  const jacoby = h("input", { type: "checkbox", name: "jacoby" });
  const bgValue = h("select", { name: "backgammon_value" },
    h("option", { value: "3" }, t("lobby.backgammon_three")),
    h("option", { value: "2" }, t("lobby.backgammon_two")));
  const privateBox = h("input", { type: "checkbox", name: "private" });
  const labelled = (text, control) => h("label", { class: "field" }, h("span", {}, text), control);
  const check = (text, control, hint) => h("label", { class: "toggle" }, control, h("span", {}, text), hint ? h("small", { class: "hint" }, hint) : null);

  async function create(event) {
    event.preventDefault();
    try {
      await ensureSignedIn(socket);
      const created = await post("/api/chouettes", {
        variant: variant.value,
        max_players: Number(maxPlayers.value),
        move_seconds: time.value ? Number(time.value) : null,
        options: { jacoby: jacoby.checked, backgammon_value: hasBackgammons() ? Number(bgValue.value) : 3 },
        private: privateBox.checked,
      });
      if (created.invite) sessionStorage.setItem(`nardy.invite.${chouetteId(created)}`, created.invite);
      navigate(`#/chouette/${chouetteId(created)}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  /** Whether the chosen variant names a backgammon, whose value the form then offers. */
  const hasBackgammons = () => (variantRules(variant.value)?.scoring.backgammon_values ?? []).length > 0;
  const bgField = labelled(t("lobby.backgammon_value"), bgValue);
  variant.addEventListener("change", () => { bgField.hidden = !hasBackgammons(); });

  const form = h("form", { class: "chouette-create", "data-form": "chouette", onsubmit: create },
    labelled(t("lobby.variant"), variant),
    labelled(t("chouette.max_players"), maxPlayers),
    labelled(t("lobby.time_control"), time),
    check(t("lobby.jacoby"), jacoby, t("chouette.jacoby_hint")),
    bgField,
    check(t("lobby.private"), privateBox, t("chouette.private_hint")),
    h("button", { type: "submit", class: "primary", "data-action": "create-chouette" }, t("chouette.create")));

  function row(entry, me) {
    const id = entry.table || entry.id;
    const players = (entry.players || []).map(nameOf).filter(Boolean);
    const max = entry.max_players || MAX_PLAYERS;
    const mine = !!(me && players.includes(me.username));
    const full = players.length >= max;
    const action = mine || full
      ? h("a", { href: `#/chouette/${id}`, class: "button", "data-watch": id }, mine ? t("lobby.open") : t("lobby.watch"))
      : h("button", { type: "button", class: "primary", "data-join-chouette": id, onclick: () => joinChouette(id, context) }, t("lobby.join"));
    return h("div", { class: "table-row", "data-chouette": id },
      h("span", { class: "variant", "data-variant": entry.variant }, `${t("chouette.title")} · ${variantName(entry.variant)}`),
      h("span", { class: "count", "data-count": `${players.length}/${max}` }, t("chouette.players_count", { n: players.length, max })),
      h("span", {}, timeControlName(entry.move_seconds)),
      h("span", { class: "players" }, players.map((p) => playerName(p)).join(", ")),
      action);
  }

  async function refresh() {
    try {
      const entries = chouetteEntries(await lobbyData());
      const me = currentUser();
      fill(list, entries.length ? entries.map((e) => row(e, me)) : h("p", { class: "hint" }, t("chouette.no_tables")));
    } catch (error) {
      fill(list, h("p", { class: "error" }, errorText(error)));
    }
  }

  const el = h("section", { class: "card chouette-card", "aria-labelledby": "chouette-title" },
    h("h2", { id: "chouette-title" }, t("chouette.title")),
    h("p", { class: "hint" }, t("chouette.lobby_hint")),
    list,
    h("details", { class: "chouette-new" }, h("summary", {}, t("chouette.create_title")), form));
  return { el, refresh };
}
