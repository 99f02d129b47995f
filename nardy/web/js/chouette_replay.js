// Chouette replay (#/chouette-replay/ID/N): step through finished game N of a chouette, frame by frame:
// the board from the team's side, the dice, the move, and every member's cube and result (docs/chouette.md).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get, errorText } from "./api.js";
import { Board } from "./board.js";
import { fromOpponent } from "./variants.js";
import { getSettings, onSettingsChange } from "./settings.js";
import { kindName, formatDice } from "./names.js";
import { frameStepper } from "./replay.js";
import { cubeText, stakeText, signed } from "./chouette_view.js";
import { analysisPanel } from "./analysis_panel.js";

const COLOURS = { box: "black", team: "white" };

export function mountChouetteReplay(view, arg) {
  const [tableId, numberText] = arg.split("/");
  const number = Number(numberText);
  let game = null;
  const names = new Map();
  let board = null;
  const boardHost = h("div", { class: "board-wrap" });
  const caption = h("div", { class: "replay-caption", role: "status", "aria-live": "polite" });
  const stakesBox = h("ul", { class: "chouette-players replay-stakes", "aria-label": t("chouette.players") });
  const title = h("h1", {}, t("replay.title"));
  const analysisHost = h("div", { class: "analysis-host" });
  let analysis = null;
  const stepper = frameStepper(show);

  const name = (uid) => names.get(uid) || t("game.player_n", { n: uid });

  function describe(frame) {
    const who = frame.player === null || frame.player === undefined ? "" : name(frame.player);
    const detail = frame.detail || {};
    switch (frame.kind) {
      case "game_started": return t("chouette.game_number", { n: game.index });
      case "opening_rolled": return t("log.opening", { a: name(game.box), da: frame.dice[0], b: name(game.team[0]), db: frame.dice[1] });
      case "rolled": return t("replay.rolled", { name: who, dice: formatDice(frame.dice) });
      case "passed": return `${who}: ${formatDice(frame.dice)} ${t("log.pass")}`;
      case "moved": return `${who}: ${frame.text || ""}`;
      case "doubled": return t("log.doubled", { name: who });
      case "double_proposed": return t("replay.chouette_proposed", { name: who });
      case "voted": return detail.agree ? t("replay.chouette_agreed", { name: who }) : t("replay.chouette_refused", { name: who });
      case "box_answered": return (detail.takes || []).length
        ? t("replay.chouette_box_takes", { name: who, members: detail.takes.map(name).join(", ") })
        : t("replay.chouette_box_passes", { name: who });
      case "took": return t("log.took", { name: who });
      case "dropped": return t("log.dropped", { name: who });
      case "resigned": return t("log.resigned", { name: who });
      case "timed_out": return t("log.timed_out", { name: (detail.players || []).map(name).join(", ") });
      default: return frame.kind;
    }
  }

  /** The cube drawn on the board: the acting captain's (the first member's once all are out). */
  function cube(frame) {
    const stake = frame.stakes.find((s) => s.member === frame.acting_captain) || frame.stakes[0];
    if (!stake) return null;
    return { value: stake.value, owner: stake.owner === "member" ? "me" : stake.owner === "box" ? "opp" : null };
  }

  function arrows(frame) {
    if (frame.kind !== "moved" || !frame.steps) return [];
    const team = frame.player !== game.box;
    return frame.steps.map((s) => ({
      from: team ? s.source : fromOpponent(game.variant, s.source),
      to: team ? s.target : fromOpponent(game.variant, s.target),
      mine: team,
      pending: false,
    }));
  }

  function show(index) {
    const frame = game.frames[index];
    const b = frame.board;
    const dice = frame.kind === "game_started" || frame.kind === "opening_rolled" ? null : frame.dice;
    const mover = frame.kind === "moved" ? (frame.player === game.box ? "box" : "team") : frame.turn;
    board.render({
      orientation: getSettings().home,
      points: b.points,
      bar: b.bar,
      off: b.off,
      colours: { me: COLOURS.team, opp: COLOURS.box },
      dice: dice ? { values: dice, used: [], mine: mover === "team" } : null,
      cube: cube(frame),
      pips: [frame.pips.team, frame.pips.box],
      arrows: arrows(frame),
    });
    const last = index === game.frames.length - 1;
    fill(caption,
      h("span", { class: "replay-text", "data-kind": frame.kind }, describe(frame)),
      dice ? h("span", { class: "log-dice" }, formatDice(dice)) : null,
      last ? h("span", { class: "replay-result", "data-result": "" }, outcome()) : null);
    fill(stakesBox,
      h("li", { class: "chouette-player role-box", "data-user-id": String(game.box), "data-role": "box" },
        h("span", { class: "role badge" }, t("chouette.role_box")), h("span", { class: "name" }, name(game.box)),
        last ? h("span", { class: "score" }, signed(points(game.box))) : null),
      frame.stakes.map((s) => h("li", {
        class: `chouette-player role-${s.member === game.team[0] ? "captain" : "member"}`,
        "data-user-id": String(s.member), "data-cube": String(s.value), "data-owner": s.owner || "centre", "data-result": s.result ?? "",
      },
      h("span", { class: "role badge" }, s.member === game.team[0] ? t("chouette.role_captain") : t("chouette.role_member")),
      h("span", { class: "name" }, name(s.member)),
      h("span", { class: "stake" }, cubeText(s), " · ", stakeText(s)))));
    boardHost.dataset.frame = String(index);
  }

  const points = (uid) => (game.result.points.find(([who]) => who === uid) || [uid, 0])[1];
  const outcome = () => `${game.result.team_won ? t("chouette.team_won") : t("chouette.box_won")}${game.result.kind ? ` · ${kindName(game.result.kind)}` : ""}`;

  fill(view, h("section", { class: "page replay chouette-replay" }, title, h("div", { class: "replay-layout" }, boardHost,
    h("div", { class: "replay-side" }, caption, stepper.controls, stepper.field, stakesBox,
      h("a", { href: `#/chouette/${encodeURIComponent(tableId)}`, class: "button" }, t("replay.back_to_table")), analysisHost))));
  board = new Board(boardHost, {});

  (async () => {
    try {
      const id = encodeURIComponent(tableId);
      const [replay, state] = await Promise.all([get(`/api/chouettes/${id}/replay`), get(`/api/chouettes/${id}`)]);
      for (const p of [...(state.scores || []), ...(state.players || [])]) if (p.name) names.set(p.user_id, p.name);
      const index = replay.games.findIndex((g) => g.number === number);
      if (index < 0 || !replay.games[index].frames.length) {
        fill(caption, t("replay.empty"));
        return;
      }
      game = { ...replay.games[index], index: index + 1, variant: state.variant };
      title.textContent = `${t("replay.title")}: ${t("chouette.game_number", { n: game.index })}`;
      stepper.count = game.frames.length;
      stepper.go(0);
      // Each member's game against the box, once the chouette has closed (docs/chouette.md, *Analysis*).
      const jump = (source) => {
        const at = game.frames.findIndex((frame) => frame.version === source);
        if (at >= 0) stepper.go(at);
      };
      analysis = analysisPanel(`/api/tables/${id}`, { names: name, jump, game: number });
      fill(analysisHost, analysis.el);
    } catch (error) {
      fill(caption, h("span", { class: "error" }, errorText(error)));
    }
  })();
  const offSettings = onSettingsChange(() => stepper.go(stepper.index));
  return () => {
    stepper.detach();
    offSettings();
    if (analysis) analysis.stop();
  };
}
