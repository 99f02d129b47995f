// The analysis board (#/analysis): any position of any variant (the start, or a pasted gnubg Position ID, XGID
// or canonical JSON), a roll picked or rolled, and the plays the engine ranks best with their equities, or the
// cube decision before a roll. Picking a play shows the position it leaves; "Play it" moves on from there.
// A link leads to the analysis of a whole match from a file (#/imports).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { post, errorText } from "./api.js";
import { Board } from "./board.js";
import { getSettings } from "./settings.js";
import { variantName, formatDice } from "./names.js";
import { variants, variantRules } from "./variants.js";

const DIE = [1, 2, 3, 4, 5, 6];

export function mountAnalysisBoard(view) {
  const variant = h("select", { name: "board-variant", "aria-label": t("lobby.variant") },
    variants().map((v) => h("option", { value: v.id }, variantName(v.id))));
  const position = h("input", { type: "text", name: "board-position", value: "start", autocomplete: "off", spellcheck: "false",
    "aria-label": t("board.position") });
  const dieA = h("select", { name: "die-a", "aria-label": t("board.die") }, DIE.map((d) => h("option", { value: String(d) }, String(d))));
  const dieB = h("select", { name: "die-b", "aria-label": t("board.die") }, DIE.map((d) => h("option", { value: String(d) }, String(d))));
  const noRoll = h("input", { type: "checkbox", name: "no-roll" });
  const cube = h("input", { type: "checkbox", name: "board-cube" });
  const level = h("select", { name: "board-level", "aria-label": t("analysis.level") },
    h("option", { value: "advanced" }, t("analysis.level_advanced")),
    h("option", { value: "expert", selected: true }, t("analysis.level_expert")),
    h("option", { value: "world-class" }, t("analysis.level_world_class")));
  const boardHost = h("div", { class: "board-wrap" });
  const results = h("div", { class: "board-results", "aria-live": "polite" });
  let board = null;

  function draw(pos, dice) {
    board.render({
      orientation: getSettings().home, points: pos.points, bar: pos.bar, off: pos.off,
      colours: { me: "white", opp: "black" },
      dice: dice ? { values: dice, used: [], mine: true } : null, cube: null,
    });
  }

  async function analyse() {
    const body = { variant: variant.value, position: position.value.trim() || "start", level: level.value, cube: cube.checked };
    if (!noRoll.checked) body.dice = [Number(dieA.value), Number(dieB.value)];
    fill(results, h("p", { class: "hint" }, t("common.loading")));
    try {
      const answer = await post("/api/analysis/position", body);
      draw(answer.position, answer.dice);
      fill(results, answer.dice ? plays(answer) : cubeAdvice(answer));
    } catch (error) {
      fill(results, h("p", { class: "error" }, errorText(error)));
    }
  }

  function plays(answer) {
    if (!answer.plays.length) return h("p", {}, t("board.no_play", { dice: formatDice(answer.dice) }));
    const best = answer.plays[0].equity;
    return h("ol", { class: "board-plays" }, answer.plays.map((play, i) => h("li", { "data-rank": String(i + 1) },
      h("button", { type: "button", class: "link", onclick: () => draw(play.position, null) }, play.text),
      h("span", { class: "equity" }, ` ${play.equity >= 0 ? "+" : ""}${play.equity.toFixed(3)}`),
      i ? h("span", { class: "loss" }, ` (${(play.equity - best).toFixed(3)})`) : null,
      h("button", { type: "button", class: "link", "data-action": "play-it", onclick: () => playIt(play) }, t("board.play_it")))));
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
    analyse();
  }
  variant.addEventListener("change", () => { cube.disabled = !variantRules(variant.value).cube.allowed; if (cube.disabled) cube.checked = false; });

  const form = h("form", { class: "card board-form", onsubmit: (event) => { event.preventDefault(); analyse(); } },
    h("label", { class: "field" }, h("span", {}, t("lobby.variant")), variant),
    h("label", { class: "field" }, h("span", {}, t("board.position")), position,
      h("small", { class: "hint" }, t("board.position_hint"))),
    h("div", { class: "row" }, h("span", {}, t("board.dice")), dieA, dieB,
      h("button", { type: "button", "data-action": "roll-dice", onclick: roll }, t("board.roll"))),
    h("label", { class: "toggle" }, noRoll, h("span", {}, t("board.before_roll"))),
    h("label", { class: "toggle" }, cube, h("span", {}, t("board.with_cube"))),
    h("label", { class: "field" }, h("span", {}, t("analysis.level")), level),
    h("button", { type: "submit", class: "primary", "data-action": "analyse-position" }, t("analysis.analyse")));
  fill(view, h("section", { class: "page analysis-board" }, h("h1", {}, t("board.title")),
    h("p", {}, h("a", { href: "#/imports", "data-action": "imports" }, t("imports.title"))),
    h("div", { class: "replay-layout" }, boardHost, h("div", { class: "replay-side" }, form, results))));
  board = new Board(boardHost, {});
  analyse();
  return () => {};
}
