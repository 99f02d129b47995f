// The analysis of a replay: ask for it, follow its progress, then the players' figures and each decision's
// loss and mark (beside the board), and the equity graph of the game shown (`panel.graph`, which the replay
// puts under the board at its full width; click a point to jump there). A decision names the
// event it judged (its `source`), which is how a replay frame finds its decision and the graph its frame.
import { h, fill, esc, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, errorText } from "./api.js";
import { currentUser } from "./session.js";
import { formatDice } from "./names.js";

const POLL_MS = 1000;
const GRAPH_WIDTH = 1000;
const GRAPH_HEIGHT = 180;
const MARKS = { "doubtful": "?!", "bad": "?", "very bad": "??" };

export function markName(mark) {
  return { "doubtful": t("analysis.doubtful"), "bad": t("analysis.error"), "very bad": t("analysis.blunder") }[mark] ?? "";
}

/**
 * The panel for the match at `base` (`/api/tables/ID` or `/api/imports/ID`: its analysis is `${base}/analysis`).
 * `names(seat)` names a player, `jump(source)` shows the frame of an event version; `panel.decisionAt(source)`
 * gives the decision judged at that event (or null) once the result is in.
 */
export function analysisPanel(base, { names, jump, onResult }) {
  const el = h("section", { class: "analysis-panel", "aria-live": "polite" });
  const graphHost = h("div", { class: "equity-graph-host" });
  const panel = { el, graph: graphHost, result: null, game: 1, stop: () => clearTimeout(timer) };
  let timer = null;

  panel.decisionAt = (source) => {
    if (!panel.result) return null;
    for (const game of panel.result.games) for (const d of game.decisions) if (d.source === source) return d;
    return null;
  };
  panel.showGame = (number) => {
    if (panel.game === number || !panel.result) return;
    panel.game = number;
    render();
  };

  async function load() {
    try {
      show(await get(`${base}/analysis`));
    } catch (error) {
      if (error.status === 404) offer();
      else fill(el, h("p", { class: "error" }, errorText(error)));
    }
  }

  /** The level and the Analyse button: before any analysis, or after one failed (`failed`: its answer). */
  function offer(failed = null) {
    const levels = { "advanced": t("analysis.level_advanced"), "expert": t("analysis.level_expert"), "world-class": t("analysis.level_world_class") };
    const chosen = failed ? failed.level : "expert";
    const level = h("select", { name: "analysis-level", "aria-label": t("analysis.level") },
      Object.entries(levels).map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
    const signedIn = !!currentUser();
    fill(el, h("h2", {}, t("analysis.title")),
      failed ? h("p", { class: "error" }, t("analysis.failed", { reason: failed.error || "" }))
        : h("p", { class: "hint" }, signedIn ? t("analysis.offer") : t("analysis.sign_in")),
      signedIn ? h("div", { class: "row" }, level,
        h("button", { type: "button", class: "primary", "data-action": "analyse", onclick: () => request(level.value) }, t("analysis.analyse"))) : null);
  }

  async function request(level) {
    try {
      show(await post(`${base}/analysis`, { level }));
    } catch (error) {
      fill(el, h("h2", {}, t("analysis.title")), h("p", { class: "error" }, errorText(error)));
    }
  }

  function show(answer) {
    clearTimeout(timer);
    if (answer.status === "done") {
      panel.result = answer;
      render();
      if (onResult) onResult(answer);
      return;
    }
    if (answer.status === "failed") {
      offer(answer);  // a failed analysis may be asked for again
      return;
    }
    const percent = Math.round(100 * answer.progress);
    fill(el, h("h2", {}, t("analysis.title")),
      h("progress", { max: "100", value: String(percent), "aria-label": t("analysis.progress") }),
      h("p", { class: "analysis-status", "data-status": answer.status }, answer.status === "queued" ? t("analysis.queued") : t("analysis.running", { percent })));
    timer = setTimeout(load, POLL_MS);
  }

  function render() {
    const result = panel.result;
    const game = result.games.find((g) => g.number === panel.game) || result.games[0];
    fill(el, h("h2", {}, t("analysis.title")), summaryTable(result, names), decisionList(game, names, jump));
    fill(graphHost, graph(game, jump));
    el.dataset.status = "done";
  }

  load();
  return panel;
}

function summaryTable(result, names) {
  const rows = [
    [t("analysis.error_rate"), (s) => s.error_rate.toFixed(1)],
    [t("analysis.pr"), (s) => s.pr.toFixed(1)],
    [t("analysis.rating"), (s) => ratingName(s.rating)],
    [t("analysis.errors"), (s) => String(s.errors)],
    [t("analysis.blunders"), (s) => String(s.blunders)],
    [t("analysis.luck"), (s) => signed(s.luck_points)],
    [t("analysis.luck_adjusted"), (s) => signed(s.luck_adjusted)],
  ];
  const [a, b] = result.summaries;
  return scrollable(h("table", { class: "analysis-summary" },
    h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, names(0)), h("th", { scope: "col" }, names(1)))),
    h("tbody", {}, rows.map(([label, value]) => h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, value(a)), h("td", {}, value(b)))))));
}

/** gnubg's rating labels, as the server gives them, in the page's language. */
function ratingName(rating) {
  return {
    "Supernatural": t("analysis.rating_supernatural"),
    "World class": t("analysis.rating_world_class"),
    "Expert": t("analysis.rating_expert"),
    "Advanced": t("analysis.rating_advanced"),
    "Intermediate": t("analysis.rating_intermediate"),
    "Casual player": t("analysis.rating_casual"),
    "Beginner": t("analysis.rating_beginner"),
    "Awful!": t("analysis.rating_awful"),
  }[rating] ?? rating;
}

function signed(value) {
  return `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(2)}`;
}

/** Player 0's equity before each decision, as an SVG line; each decision's point jumps to its frame. */
function graph(game, jump) {
  const points = game.equity;
  const wrap = h("div", { class: "equity-graph" });
  if (!points.length) return wrap;
  const span = Math.max(1, ...points.map((v) => Math.abs(v)));
  const x = (i) => (points.length === 1 ? GRAPH_WIDTH / 2 : (i * GRAPH_WIDTH) / (points.length - 1));
  const y = (v) => GRAPH_HEIGHT / 2 - (v / span) * (GRAPH_HEIGHT / 2 - 6);
  const line = points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const dots = game.decisions.map((d, i) => {
    const cls = `equity-point${d.mark ? " marked" : ""}`;
    const label = esc(`${d.move}. ${d.played} ${d.equity_loss > 0 ? `−${d.equity_loss.toFixed(3)}` : ""}`);
    return `<circle class="${cls}" data-index="${i}" data-source="${d.source ?? ""}" cx="${x(i).toFixed(1)}" cy="${y(points[i]).toFixed(1)}" r="${d.mark ? 8 : 5}"><title>${label}</title></circle>`;
  }).join("");
  wrap.innerHTML = `<svg class="equity-svg" viewBox="0 0 ${GRAPH_WIDTH} ${GRAPH_HEIGHT}" role="img" aria-label="${esc(t("analysis.graph"))}">`
    + `<line class="equity-axis" x1="0" y1="${GRAPH_HEIGHT / 2}" x2="${GRAPH_WIDTH}" y2="${GRAPH_HEIGHT / 2}"/>`
    + `<polyline class="equity-line" points="${line}"/>${dots}</svg>`;
  wrap.addEventListener("click", (event) => {
    const dot = event.target.closest("circle[data-source]");
    if (dot && dot.dataset.source) jump(Number(dot.dataset.source));
  });
  return wrap;
}

function decisionList(game, names, jump) {
  return h("ol", { class: "analysis-moves", "aria-label": t("analysis.moves") },
    game.decisions.map((d) => h("li", { "data-source": d.source ?? "", "data-mark": d.mark || "", class: d.mark ? "marked" : "" },
      h("button", { type: "button", class: "link", onclick: () => d.source !== null && jump(d.source) },
        `${d.move}. ${names(d.player)} ${d.dice.length ? formatDice(d.dice) + ": " : ""}${d.played}`),
      d.equity_loss > 0.0005 ? h("span", { class: "loss" }, ` −${d.equity_loss.toFixed(3)}`) : null,
      d.mark ? h("span", { class: "mark", title: markName(d.mark) }, ` ${MARKS[d.mark]}`) : null)));
}
