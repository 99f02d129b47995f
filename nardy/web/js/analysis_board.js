// The analysis board (#/analysis): any position of any variant (the start, a pasted gnubg Position ID, XGID
// or canonical JSON, or one set up by dragging checkers), a roll picked, rolled or brought by the XGID, and the
// plays the engine ranks, best first, each with the depth it was searched to, or the cube decision before a
// roll. The best play is drawn on the board as arrows; picking a play draws the position it leaves; "play it"
// moves on from there. A link leads to the analysis of a whole match from a file (#/imports).
import { h, fill } from "./dom.js";
import { t, tData } from "./i18n.js";
import { post, errorText } from "./api.js";
import { Board } from "./board.js";
import { playArrows } from "./play_arrows.js";
import { getSettings } from "./settings.js";
import { formatDice } from "./names.js";
import { variantRules, analysisOf } from "./variants.js";
import { variantOptions } from "./variant_choices.js";

const DIE = [1, 2, 3, 4, 5, 6];
const LEVEL_NAMES = {
  "advanced": () => t("analysis.level_advanced"),
  "expert": () => t("analysis.level_expert"),
  "world-class": () => t("analysis.level_world_class"),
};

/** Why a variant has no analysis, from the reason's code the server gives (GET /api/variants: `analysis`). */
const unavailableText = (code) => tData("analysis_unavailable", code, code);
const XGID = /^\s*XGID=/i;

export function mountAnalysisBoard(view) {
  // a position belongs to one game's rules: a match of rotating games (tavli) is studied game by game
  const variant = h("select", { name: "board-variant", "aria-label": t("lobby.variant") },
    variantOptions((v) => !v.games));
  const position = h("input", { type: "text", name: "board-position", value: "start", autocomplete: "off", spellcheck: "false",
    "aria-label": t("board.position") });
  const dieA = h("select", { name: "die-a", "aria-label": t("board.die") }, DIE.map((d) => h("option", { value: String(d) }, String(d))));
  const dieB = h("select", { name: "die-b", "aria-label": t("board.die") }, DIE.map((d) => h("option", { value: String(d) }, String(d))));
  const noRoll = h("input", { type: "checkbox", name: "no-roll" });
  const cube = h("input", { type: "checkbox", name: "board-cube" });
  const level = h("select", { name: "board-level", "aria-label": t("analysis.level") });
  const levelField = h("label", { class: "field" }, h("span", {}, t("analysis.level")), level);
  const setupSide = h("select", { name: "setup-side", "aria-label": t("board.setup_side") },
    h("option", { value: "0" }, t("board.setup_white")), h("option", { value: "1" }, t("board.setup_black")));
  const setupButton = h("button", { type: "button", "data-action": "setup", "aria-pressed": "false", onclick: () => setSetup(!setup) },
    t("board.setup"));
  const setupTools = h("div", { class: "row setup-tools", hidden: true },
    h("label", { class: "field" }, h("span", {}, t("board.setup_side")), setupSide),
    h("button", { type: "button", "data-action": "clear-board", onclick: clearBoard }, t("board.clear")),
    h("button", { type: "button", "data-action": "start-position", onclick: startPosition }, t("board.start_position")),
    h("small", { class: "hint" }, t("board.setup_hint")));
  const boardHost = h("div", { class: "board-wrap" });
  const results = h("div", { class: "board-results", "aria-live": "polite" });
  const setupMessage = h("p", { class: "error setup-message", hidden: true });
  let board = null;
  let current = null; // the position shown, as the server gave it
  let diceFromPosition = false; // an XGID brings its own roll until a die is picked
  let setup = false;

  function draw(pos, dice, arrows = []) {
    const movable = setup ? setupSources(pos) : new Set();
    board.render({
      orientation: getSettings().home, points: pos.points, bar: pos.bar, off: pos.off, pinned: pos.pinned,
      colours: { me: "white", opp: "black" },
      dice: dice ? { values: dice, used: [], mine: true } : null, cube: null, arrows, movable,
    });
    boardHost.dataset.setup = setup ? "on" : "off";
  }

  /** Where a checker may be picked up in set-up mode: any checker on a point, and the chosen side's bar and tray. */
  function setupSources(pos) {
    const side = Number(setupSide.value);
    const sources = new Set();
    pos.points.forEach((n, i) => { if (n) sources.add(i + 1); });
    if (pos.bar[side]) sources.add(25);
    if (pos.off[side]) sources.add(0);
    return sources;
  }

  /** The levels the chosen variant's engine offers (the server's word), keeping the one picked where it still is. */
  function offerLevels() {
    const offered = analysisOf(variant.value).levels;
    const kept = offered.includes(level.value) ? level.value : offered.includes("expert") ? "expert" : offered[offered.length - 1];
    fill(level, offered.map((value) => h("option", { value, selected: value === kept }, LEVEL_NAMES[value]?.() ?? value)));
    levelField.hidden = !offered.length;
  }

  /** The latest analysis asked for: an answer to an earlier one (a slower request) is dropped, not drawn over it. */
  let latestAsked = 0;

  async function analyse() {
    const asked = ++latestAsked;
    const body = { variant: variant.value, position: position.value.trim() || "start", cube: cube.checked };
    if (level.value) body.level = level.value;
    if (!noRoll.checked && !(diceFromPosition && XGID.test(position.value))) body.dice = [Number(dieA.value), Number(dieB.value)];
    fill(results, h("p", { class: "hint" }, t("common.loading")));
    try {
      const answer = await post("/api/analysis/position", body);
      if (asked !== latestAsked) return;
      current = answer.position;
      if (answer.dice) {
        dieA.value = String(answer.dice[0]);
        dieB.value = String(answer.dice[1]);
      }
      draw(answer.position, answer.dice, answer.plays.length ? playArrows(answer.plays[0]) : []);
      if (answer.unavailable) fill(results, h("p", { class: "hint", "data-unavailable": answer.unavailable }, unavailableText(answer.unavailable)));
      else fill(results, answer.dice ? plays(answer) : cubeAdvice(answer));
    } catch (error) {
      if (asked === latestAsked) fill(results, h("p", { class: "error" }, errorText(error)));
    }
  }

  function plays(answer) {
    if (!answer.plays.length) return h("p", {}, t("board.no_play", { dice: formatDice(answer.dice) }));
    const best = answer.plays[0].equity;
    return h("div", {},
      h("p", { class: "board-dice" }, t("board.rated_roll", { dice: formatDice(answer.dice) })),
      h("ol", { class: "board-plays" }, answer.plays.map((play, i) => h("li", { "data-rank": String(i + 1) },
        h("button", { type: "button", class: "link", onclick: () => draw(play.position, null, playArrows(play)) }, play.text),
        h("span", { class: "equity" }, `${play.equity >= 0 ? "+" : ""}${play.equity.toFixed(3)}`),
        h("span", { class: "loss" }, i ? `(${(play.equity - best).toFixed(3)})` : ""),
        h("span", { class: "depth", title: t("board.depth_hint") }, t("board.depth", { plies: play.plies })),
        h("button", { type: "button", class: "link", "data-action": "play-it", onclick: () => playIt(play) }, t("board.play_it"))))));
  }

  function cubeAdvice(answer) {
    if (!answer.cube) return h("p", { class: "hint" }, t("board.pick_roll"));
    const c = answer.cube;
    const verdict = c.should_double ? (c.should_take ? t("board.double_take") : t("board.double_pass")) : t("board.no_double");
    return h("div", { class: "board-cube" }, h("p", { class: "verdict" }, verdict),
      h("p", {}, t("board.cube_equities", { nd: c.no_double.toFixed(3), dt: c.double_take.toFixed(3), dp: c.double_pass.toFixed(3) })));
  }

  /** Go on from this play: the opponent's turn, in the position it leaves (the server turns it round). */
  function playIt(play) {
    position.value = JSON.stringify(play.next);
    roll();
  }

  function roll() {
    dieA.value = String(1 + Math.floor(Math.random() * 6));
    dieB.value = String(1 + Math.floor(Math.random() * 6));
    noRoll.checked = false;
    diceFromPosition = false;
    analyse();
  }

  // ----- setting a position up: drag a checker from a point, the bar or the tray to another (off the board: its tray)

  function setSetup(on) {
    setup = on;
    setupButton.setAttribute("aria-pressed", on ? "true" : "false");
    setupTools.hidden = !on;
    setupMessage.hidden = true;
    if (current) draw(current, null);
  }

  async function edit(body) {
    try {
      const answer = await post("/api/analysis/setup", { variant: variant.value, position: current, ...body });
      current = answer.position;
      position.value = JSON.stringify(current);
      setupMessage.hidden = true;
      fill(results, h("p", { class: "hint" }, t("board.setup_done")));
    } catch (error) {
      setupMessage.hidden = false;
      setupMessage.textContent = errorText(error);
    }
    draw(current, null);
  }

  function dropped(source, target) {
    if (!setup || !current) return;
    const owner = source >= 1 && source <= 24 ? (current.points[source - 1] > 0 ? 0 : 1) : Number(setupSide.value);
    edit({ edit: "move", side: owner, source, target: target === null ? 0 : target });
  }

  function clearBoard() {
    if (current) edit({ edit: "clear" });
  }

  function startPosition() {
    position.value = "start";
    noRoll.checked = true;
    analyse();
  }

  variant.addEventListener("change", () => {
    offerLevels();
    cube.disabled = !variantRules(variant.value).cube.allowed;
    if (cube.disabled) cube.checked = false;
    if (setup) startPosition();
  });
  position.addEventListener("input", () => { diceFromPosition = XGID.test(position.value); });
  for (const picked of [dieA, dieB, noRoll]) picked.addEventListener("change", () => { diceFromPosition = false; });
  setupSide.addEventListener("change", () => { if (current) draw(current, null); });

  const form = h("form", { class: "card board-form", onsubmit: (event) => { event.preventDefault(); analyse(); } },
    h("label", { class: "field" }, h("span", {}, t("lobby.variant")), variant),
    h("label", { class: "field" }, h("span", {}, t("board.position")), position,
      h("small", { class: "hint" }, t("board.position_hint"))),
    h("div", { class: "row" }, h("span", {}, t("board.dice")), dieA, dieB,
      h("button", { type: "button", "data-action": "roll-dice", onclick: roll }, t("board.roll"))),
    h("label", { class: "toggle" }, noRoll, h("span", {}, t("board.before_roll"))),
    h("label", { class: "toggle" }, cube, h("span", {}, t("board.with_cube"))),
    levelField,
    h("button", { type: "submit", class: "primary", "data-action": "analyse-position" }, t("analysis.analyse")));
  fill(view, h("section", { class: "page analysis-board" }, h("h1", {}, t("board.title")),
    h("p", {}, h("a", { href: "#/imports", "data-action": "imports" }, t("imports.title"))),
    h("div", { class: "analysis-layout" },
      h("div", { class: "analysis-main" }, boardHost, h("div", { class: "row" }, setupButton), setupTools, setupMessage),
      h("div", { class: "replay-side" }, form, results))));
  board = new Board(boardHost, { onDrop: dropped });
  offerLevels();
  analyse();
  return () => {};
}
