// Pieces of the chouette page drawn from its state view: the players with their roles, scores
// and cubes, the rolls for places, and the results of past games. Pure: state in, elements out.
import { h, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { kindName } from "./names.js";
import { icon } from "./icons.js";

/** Points with their sign: +2, -4, 0. */
export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

export function roleName(role) {
  return {
    box: t("chouette.role_box"),
    captain: t("chouette.role_captain"),
    acting: t("chouette.role_acting"),
    member: t("chouette.role_member"),
    seated: t("chouette.role_seated"),
    joining: t("chouette.role_joining"),
  }[role] ?? role;
}

export function howName(how) {
  return {
    passed: t("chouette.how_passed"),
    "dropped-by-box": t("chouette.how_dropped_by_box"),
    resigned: t("chouette.how_resigned"),
    "bore-off": t("chouette.how_bore_off"),
    "box-resigned": t("chouette.how_box_resigned"),
  }[how] ?? how ?? "";
}

/** A player's role in the current game: the acting captain is told apart from the captain. */
export function roleOf(player, game) {
  if (game && player.role === "member" && game.acting_captain === player.user_id && game.captain !== player.user_id) return "acting";
  return player.role;
}

export function cubeText(stake) {
  if (stake.owner === "box") return t("chouette.cube_box", { value: stake.value });
  if (stake.owner === "member") return t("chouette.cube_member", { value: stake.value });
  return t("chouette.cube_centred", { value: stake.value });
}

export function stakeText(stake) {
  if (stake.result === null || stake.result === undefined) return t("chouette.in_play");
  return t("chouette.stake_result", { points: signed(stake.result), how: howName(stake.how) });
}

/** The players' list: role, name, running score, and in a game each member's cube and result. */
export function playersList(state, { me, name }) {
  const g = state.game;
  const stakes = new Map(((g && g.stakes) || []).map((s) => [s.member, s]));
  const awaiting = new Set((g && g.awaiting) || []);
  return h("ul", { class: "chouette-players", "aria-label": t("chouette.players") },
    (state.players || []).map((p) => {
      const role = roleOf(p, g);
      const stake = stakes.get(p.user_id);
      const you = me !== null && p.user_id === me;
      return h("li", {
        class: `chouette-player role-${role}${awaiting.has(p.user_id) ? " to-move" : ""}${you ? " you" : ""}`,
        "data-user-id": String(p.user_id), "data-role": role, "data-name": p.name,
      },
      h("span", { class: "role badge" }, roleName(role)),
      h("span", { class: "name" }, name(p.user_id), you ? h("small", { class: "hint" }, ` (${t("chouette.you")})`) : null),
      p.leaving ? h("span", { class: "badge leaving", "data-leaving": "" }, t("chouette.leaving")) : null,
      h("span", { class: "score", "data-score": String(p.score ?? 0), title: t("chouette.score") }, signed(p.score ?? 0)),
      h("span", { class: "clock", "data-clock-user": String(p.user_id) }),
      stake ? h("span", { class: "stake", "data-cube": String(stake.value), "data-owner": stake.owner || "centre", "data-result": stake.result ?? "" },
        cubeText(stake), " · ", stakeText(stake)) : null);
    }));
}

/** The rolls for places: one line a round, and who rolls again. */
export function formationView(state, name) {
  const f = state.formation;
  if (!f || (!(f.rolls || []).length && !(f.to_roll || []).length)) return null;
  return h("div", { class: "formation", "data-formation": "" },
    h("h3", {}, t("chouette.formation")),
    h("ol", {}, (f.rolls || []).map((round, i) => h("li", { "data-round": String(i + 1) },
      t("chouette.formation_round", { n: i + 1 }), " ",
      round.map(([uid, die]) => h("span", { class: "roll", "data-user-id": String(uid), "data-die": String(die) },
        h("span", { class: "name" }, name(uid)), h("b", { class: "die" }, String(die))))))),
    (f.to_roll || []).length && state.status === "forming"
      ? h("p", { class: "hint" }, t("chouette.to_roll", { names: f.to_roll.map(name).join(", ") })) : null);
}

/** Past games: a row per player with their points in each game (the box's in italics), the totals, and a replay link per game. */
export function resultsTable(state, name) {
  const results = state.results || [];
  if (!results.length) return h("p", { class: "hint", "data-results": "0" }, t("chouette.no_results"));
  const ids = [];
  for (const r of results) for (const [uid] of r.points) if (!ids.includes(uid)) ids.push(uid);
  const outcome = (r) => `${r.team_won ? t("chouette.team_won") : t("chouette.box_won")}${r.kind ? ` · ${kindName(r.kind)}` : ""}`;
  return scrollable(h("table", { class: "data chouette-results", "data-results": String(results.length) },
    h("thead", {}, h("tr", {},
      h("th", {}, t("chouette.players")),
      results.map((r, i) => h("th", { "data-game": String(r.number), title: t("chouette.game_result", { n: i + 1, result: outcome(r) }) }, String(i + 1))),
      h("th", {}, t("chouette.total")))),
    h("tbody", {}, ids.map((uid) => {
      let total = 0;
      const cells = results.map((r) => {
        const found = r.points.find(([who]) => who === uid);
        const pts = found ? found[1] : null;
        total += pts ?? 0;
        const cls = `points${pts > 0 ? " won" : pts < 0 ? " lost" : ""}${uid === r.box ? " box" : ""}`;
        return h("td", { class: cls, "data-user-id": String(uid), "data-game": String(r.number), "data-points": pts ?? "",
          title: uid === r.box ? t("chouette.role_box") : null }, pts === null ? "" : signed(pts));
      });
      return h("tr", { "data-user-id": String(uid) },
        h("th", { class: "name" }, name(uid)), cells,
        h("td", { class: "total", "data-user-id": String(uid), "data-total": String(total) }, signed(total)));
    })),
    h("tfoot", {}, h("tr", {},
      h("th", {}, t("chouette.replay")),
      results.map((r, i) => h("td", { "data-game": String(r.number) },
        h("a", { href: `#/chouette-replay/${encodeURIComponent(state.table)}/${r.number}`, class: "replay-link", "data-replay": String(r.number),
          title: t("chouette.replay_game", { n: i + 1 }), "aria-label": t("chouette.replay_game", { n: i + 1 }) }, icon("forward")))),
      h("td", {})))));
}
