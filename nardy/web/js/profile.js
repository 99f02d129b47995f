// A player's page (#/profile/NAME): ratings, coins, finished matches and results, dice statistics, and their own
// wins by colour; another player's has the report and block buttons, one's own the warnings and restrictions
// moderators put on the account.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, errorText } from "./api.js";
import { variantName, familyName, matchLengthName, formatDate, playerName } from "./names.js";
import { currentUser } from "./session.js";
import { coinsCard } from "./coins.js";
import { blockButton, reportButton } from "./report.js";

export function mountProfile(view, username, context) {
  const games = h("div", { class: "card", id: "profile-games" }, h("p", {}, t("common.loading")));
  const dice = h("div", { class: "card", id: "profile-dice" });
  const colours = h("div", { class: "card", id: "colour-stats" });
  const ratings = h("div", { class: "card", id: "profile-ratings" });
  const me = currentUser();
  const own = Boolean(me) && me.username.toLowerCase() === username.toLowerCase();
  const coins = coinsCard(username, own, own && me.guest);
  const standing = own ? h("div", { class: "card", id: "profile-standing" }) : null;
  const actions = me && !own
    ? h("div", { class: "row profile-actions" }, reportButton(username, null, context.toast), blockButton(username, context.toast))
    : null;
  fill(view, h("section", { class: "page profile" },
    h("h1", {}, t("profile.title", { name: username })),
    actions, standing,
    h("div", { class: "profile-grid" }, h("div", {}, ratings, games), h("div", {}, coins, dice, colours))));

  if (standing) {
    get("/api/me/moderation").then((data) => renderStanding(standing, data),
      (error) => fill(standing, h("p", { class: "error" }, errorText(error))));
  }
  (async () => {
    try {
      renderRatings(ratings, username, await get(`/api/users/${encodeURIComponent(username)}/ratings`));
    } catch (error) {
      fill(ratings, h("p", { class: "error" }, errorText(error)));
    }
  })();
  (async () => {
    try {
      const data = await get(`/api/users/${encodeURIComponent(username)}/games`);
      renderGames(games, data);
    } catch (error) {
      fill(games, h("p", { class: "error" }, errorText(error)));
    }
  })();
  (async () => {
    try {
      const data = await get(`/api/users/${encodeURIComponent(username)}/dice`);
      renderDice(dice, data.statistics);
    } catch (error) {
      fill(dice, h("p", { class: "error" }, errorText(error)));
    }
  })();
  (async () => {
    try {
      renderColours(colours, await get(`/api/users/${encodeURIComponent(username)}/colours`));
    } catch (error) {
      fill(colours, h("p", { class: "error" }, errorText(error)));
    }
  })();
  return () => {};
}

// The warnings and restrictions on one's own account; the card stays hidden while there are none.
function renderStanding(el, data) {
  const until = (r) => (r.until ? formatDate(r.until) : t("standing.for_good"));
  const lines = [
    ...data.warnings.map((w) => h("li", { "data-warning": "" }, t("standing.warning", { date: formatDate(w.at), reason: w.reason }))),
    data.muted ? h("li", { "data-muted": "" }, t("standing.muted", { until: until(data.muted), reason: data.muted.reason })) : null,
    data.banned ? h("li", { "data-banned": "" }, t("standing.banned", { until: until(data.banned), reason: data.banned.reason })) : null,
    data.engine_assisted ? h("li", { "data-engine": "" }, t("standing.engine")) : null,
  ].filter(Boolean);
  el.hidden = !lines.length;
  fill(el, h("h2", {}, t("standing.title")), h("ul", {}, lines));
}

// One line per variant family with the rating, its provisional mark, and the server-drawn history graph.
function renderRatings(el, username, data) {
  const families = Object.entries(data.ratings).map(([family, info]) =>
    h("div", { class: "rating-family", "data-family": family },
      h("h3", {}, familyName(family), " ",
        h("strong", {}, String(Math.round(info.rating))),
        info.provisional ? h("span", { class: "provisional" }, ` (${t("profile.provisional")})`) : null),
      h("p", {}, t("profile.rated_matches", { matches: info.matches })),
      info.history.length
        ? h("img", {
          class: "rating-graph",
          src: `/api/users/${encodeURIComponent(username)}/ratings/${family}.svg`,
          alt: t("profile.rating_graph", { name: username }),
        })
        : null));
  fill(el, h("h2", {}, t("profile.ratings")), ...families);
}

function renderGames(el, data) {
  const rows = data.tables;
  const matches = rows.filter((row) => row.kind !== "chouette");
  let wins = 0;
  const body = rows.map((row) => {
    if (row.kind === "chouette") return chouetteRow(row);
    const seat = row.players.findIndex((p) => p && p.toLowerCase() === data.user.toLowerCase());
    const won = row.winner !== null && row.winner === seat;
    if (won) wins += 1;
    const opponent = playerName(row.players[1 - seat], row.bots && row.bots[1 - seat]);
    const score = row.score && row.score.score ? (seat === 1 ? [...row.score.score].reverse() : row.score.score).join(" : ") : "";
    return h("tr", { "data-table": row.table },
      h("td", {}, formatDate(row.finished_at)),
      h("td", {}, variantName(row.variant)),
      h("td", {}, matchLengthName(row.match_length)),
      h("td", {}, opponent),
      h("td", {}, score),
      h("td", { class: won ? "won" : "lost" }, won ? t("profile.won") : t("profile.lost")),
      h("td", {}, h("a", { href: `#/replay/${row.table}` }, t("game.replay"))));
  });
  fill(el,
    h("h2", {}, t("profile.games")),
    matches.length ? h("p", {}, t("profile.summary", { games: matches.length, wins, losses: matches.length - wins })) : null,
    rows.length
      ? scrollable(h("table", { class: "data" },
        h("thead", {}, h("tr", {}, [t("profile.date"), t("lobby.variant"), t("lobby.match_length"), t("profile.opponent"), t("game.score"), t("profile.result"), ""].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, body)))
      : h("p", { class: "hint" }, t("profile.no_games")));
}

// A chouette the player sat at: its games, the player's points there (won when ahead), and its page, which
// replays each game.
function chouetteRow(row) {
  const points = row.points;
  const [result, label] = points > 0 ? ["won", t("profile.won")] : points < 0 ? ["lost", t("profile.lost")] : ["even", t("profile.even")];
  return h("tr", { "data-table": row.table, "data-kind": "chouette" },
    h("td", {}, formatDate(row.finished_at)),
    h("td", {}, variantName(row.variant)),
    h("td", {}, t("chouette.title")),
    h("td", {}, t("profile.chouette_games", { games: row.score.games })),
    h("td", {}, points > 0 ? `+${points}` : String(points)),
    h("td", { class: result }, label),
    h("td", {}, h("a", { href: `#/chouette/${row.table}` }, t("game.replay"))));
}

// The faces of a set of rolls against fair dice, with their chi-square: a player's here, the site's on #/statistics.
export function renderDice(el, stats, title = t("profile.dice")) {
  const faces = stats.faces || {};
  const max = Math.max(1, ...Object.values(faces), stats.expected_face || 0);
  const bars = [1, 2, 3, 4, 5, 6].map((face) => {
    const n = faces[face] ?? faces[String(face)] ?? 0;
    // Sizes go through element.style: the Content-Security-Policy refuses style="..." attributes.
    const fillBar = h("span", { class: "bar-fill" });
    fillBar.style.width = `${(100 * n) / max}%`;
    const expected = h("span", { class: "bar-expected", title: t("profile.expected") });
    expected.style.left = `${(100 * (stats.expected_face || 0)) / max}%`;
    return h("div", { class: "bar-row" },
      h("span", { class: "bar-label" }, String(face)),
      h("span", { class: "bar-track" }, fillBar, expected),
      h("span", { class: "bar-value" }, String(n)));
  });
  fill(el,
    h("h2", {}, title),
    h("p", {}, t("profile.dice_summary", { rolls: stats.rolls, doubles: stats.doubles, expected: (stats.expected_doubles || 0).toFixed(1) })),
    h("div", { class: "bars", role: "img", "aria-label": t("profile.faces") }, bars),
    h("p", { class: "hint", "data-chi-square": (stats.chi_square || 0).toFixed(2) }, t("profile.chi_square", { value: (stats.chi_square || 0).toFixed(2) })));
}

// The player's own games and wins with each colour, per variant; the site's figures are on #/statistics.
function renderColours(el, data) {
  const variants = Object.entries(data.variants || {});
  const record = ({ wins, games }) => (games ? t("profile.colour_record", { wins, games }) : "–");
  fill(el,
    h("h2", {}, t("profile.colours")),
    variants.length
      ? scrollable(h("table", { class: "data" },
        h("thead", {}, h("tr", {}, [t("lobby.variant"), t("profile.white"), t("profile.black")].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, variants.map(([variant, colours]) =>
          h("tr", { "data-variant": variant }, h("td", {}, variantName(variant)),
            h("td", { "data-colour": "white" }, record(colours.white)), h("td", { "data-colour": "black" }, record(colours.black)))))))
      : h("p", { class: "hint" }, t("profile.no_colour_stats")),
    h("p", {}, h("a", { href: "#/statistics", "data-site-statistics": "" }, t("profile.site_statistics"))));
}
