// The home page's live card: the people at tables and the games being played (GET /api/home), and a featured
// game, the strongest public match being played, drawn on a small board that follows it over the socket.
// A tap on the board, or its Watch link, opens the table to watch.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get } from "./api.js";
import { Board } from "./board.js";
import { diceFaces } from "./picking.js";
import { variantName, matchLengthName } from "./names.js";

/** The board view of a table's state from seat 0's side (a spectator's view: no highlights, no roll button). */
function spectatorView(state) {
  const g = state.game;
  if (!g) return { points: new Array(24).fill(0), bar: [0, 0], off: [0, 0] };
  const colourOf = (seat) => (seat === g.white ? "white" : "black");
  const board = g.boards[0];
  return {
    points: board.points, bar: board.bar, off: board.off, pinned: board.pinned,
    colours: { me: colourOf(0), opp: colourOf(1) },
    dice: g.dice && g.phase !== "finished" ? { ...diceFaces(g.dice, g.pending), mine: g.turn === 0 } : null,
    cube: state.options.cube ? {
      value: g.cube.value, offered: g.phase === "doubled",
      owner: g.cube.owner === null || g.cube.owner === undefined ? null : g.cube.owner === 0 ? "me" : "opp",
    } : null,
    pips: g.pips,
  };
}

export function liveCard({ socket, navigate }) {
  const counts = h("p", { class: "site-counts" });
  const title = h("p", { class: "featured-title" });
  const host = h("div", { class: "board-wrap featured-board", role: "link", "aria-label": t("home.watch") });
  const watchLink = h("a", { class: "button", "data-action": "watch-featured" }, t("home.watch"));
  const featured = h("div", { class: "featured", hidden: true }, title, host, watchLink);
  const none = h("p", { class: "hint featured-none", hidden: true }, t("home.no_featured"));
  const board = new Board(host, {});
  let table = null;
  let unwatch = () => {};

  host.addEventListener("click", () => { if (table) navigate(`#/table/${table}`); });

  function follow(next) {
    if (next === table) return;
    unwatch();
    unwatch = () => {};
    table = next;
    if (!table) return;
    unwatch = socket.watch(table, (update) => {
      if (update.state) board.render(spectatorView(update.state));
    });
  }

  async function refresh() {
    let home;
    try { home = await get("/api/home"); } catch { return; }
    fill(counts,
      h("span", { "data-players-online": String(home.players_online) }, t("home.players_online", { n: home.players_online })),
      " · ",
      h("span", { "data-games-playing": String(home.games_playing) }, t("home.games_playing", { n: home.games_playing })));
    const game = home.featured;
    featured.hidden = !game;
    none.hidden = !!game;
    if (game) {
      const player = (i) => (game.ratings[i] === null ? game.players[i] : `${game.players[i]} (${game.ratings[i]})`);
      fill(title, h("strong", {}, variantName(game.variant)), " · ", matchLengthName(game.match_length),
        h("br"), `${player(0)} – ${player(1)}`, game.score ? ` · ${game.score.join(" : ")}` : "");
      watchLink.href = `#/table/${game.table}`;
      featured.dataset.featured = game.table;
    }
    follow(game ? game.table : null);
  }

  const el = h("section", { class: "card live", id: "site-live" },
    h("h2", {}, t("home.live")), counts, featured, none);
  return { el, refresh, stop: () => unwatch() };
}
