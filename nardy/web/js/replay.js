// Replay (#/replay/ID): step through a table's frames (board from seat 0, dice, cube, pips, score,
// the last move's arrows), with the list of moves beside the board to jump to any of them, and the analysis.
// The viewer (mountViewer) is shared with the replay of an uploaded match file (imports.js).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get, errorText } from "./api.js";
import { Board } from "./board.js";
import { fromOpponent, matchFileLinks } from "./variants.js";
import { getSettings, onSettingsChange } from "./settings.js";
import { variantName, kindName, formatDice, seatName } from "./names.js";
import { analysisPanel, markName } from "./analysis_panel.js";
import { icon } from "./icons.js";
import { withInvite } from "./invites.js";

const SHOWN = new Set([
  "game_started", "opening_rolled", "rolled", "passed", "moved", "doubled", "took", "beavered", "dropped", "resigned",
  "resignation_accepted", "resignation_declined", "timed_out", "forfeited", "game_ended", "match_ended",
]);

/**
 * Stepping through frames: the first/back/forward/last buttons, the counter, the slider and the arrow keys.
 * `render(i)` draws frame i; `go(i)` clamps i, draws it and updates the controls. Shared with the chouette replay.
 */
export function frameStepper(render) {
  const stepper = { index: 0, count: 0 };
  const counter = h("span", { class: "replay-counter" });
  const slider = h("input", { type: "range", min: "0", max: "0", value: "0", "aria-label": t("replay.jump"), name: "frame" });
  stepper.go = (i) => {
    if (!stepper.count) return;
    stepper.index = Math.max(0, Math.min(stepper.count - 1, i));
    render(stepper.index);
    slider.max = String(stepper.count - 1);
    slider.value = String(stepper.index);
    counter.textContent = t("replay.frame", { n: stepper.index + 1, total: stepper.count });
  };
  const go = (i) => stepper.go(i);
  const button = (name, aria, onclick) => h("button", { type: "button", "aria-label": aria, title: aria, "data-action": name, onclick }, icon(name));
  stepper.controls = h("div", { class: "replay-controls", role: "group", "aria-label": t("replay.controls") },
    button("first", t("replay.first"), () => go(0)),
    button("back", t("replay.back"), () => go(stepper.index - 1)),
    button("forward", t("replay.forward"), () => go(stepper.index + 1)),
    button("last", t("replay.last"), () => go(stepper.count - 1)),
    counter);
  stepper.field = h("label", { class: "field" }, h("span", {}, t("replay.jump")), slider);
  slider.addEventListener("input", () => go(Number(slider.value)));

  function onKey(event) {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.key === "ArrowRight") go(stepper.index + 1);
    else if (event.key === "ArrowLeft") go(stepper.index - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(stepper.count - 1);
    else return;
    event.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  stepper.detach = () => document.removeEventListener("keydown", onKey);
  return stepper;
}

/** A table's replay: its frames, its players, the .mat and SGF downloads and, once the match is over, its analysis. */
export function mountReplay(view, tableId) {
  const id = encodeURIComponent(tableId);
  return mountViewer(view, { href: `#/table/${tableId}`, text: t("replay.back_to_table") }, async () => {
    const [replay, table, record] = await Promise.all([get(`/api/tables/${id}/replay`), get(`/api/tables/${id}`), get(`/api/tables/${id}/record`)]);
    // which seat played white in each finished game (the frames do not say)
    const whites = {};
    for (const event of record.events) if (event.kind === "game_ended") whites[event.payload.number] = event.payload.white;
    return {
      frames: replay.frames,
      variant: replay.variant,
      title: `${t("replay.title")}: ${variantName(replay.variant)}`,
      names: [0, 1].map((seat) => (table.seats[seat] ? seatName(table.seats[seat]) : t("game.player_n", { n: seat + 1 }))),
      whites,
      white: table.game ? table.game.white : 0,
      cube: table.options.cube,
      analysis: table.status === "finished" ? `/api/tables/${id}` : null,
      // a private table's files need its invite where this tab holds one (the link is followed without our headers)
      downloads: matchFileLinks(replay.variant, `/api/tables/${id}`, `nardy-${tableId}`)
        .map((link) => ({ ...link, href: withInvite(link.href) })),
    };
  });
}

/**
 * The replay page around what `load()` resolves to, a *source*: `frames` (as GET /api/tables/{id}/replay gives
 * them), `variant`, `title`, `names` (the two players'), `whites` (game number → the seat that played white),
 * `white` (the seat playing white in the game still in play, which `whites` leaves out), `cube` (whether the
 * cube is drawn), `analysis` (the address whose /analysis the panel reads, or null for no panel) and
 * `downloads` ({href, file, kind, text}: links to the match's files). `back` is the link under the move list,
 * {href, text}. Returns the unmount function.
 */
export function mountViewer(view, back, load) {
  let frames = [];
  let source = null;
  let board = null;
  const boardHost = h("div", { class: "board-wrap" });
  const moveList = h("ol", { class: "replay-moves", "aria-label": t("game.moves") });
  const caption = h("div", { class: "replay-caption", role: "status", "aria-live": "polite" });
  const title = h("h1", {}, t("replay.title"));
  const stepper = frameStepper(show);
  const analysisHost = h("div", { class: "analysis-host" });
  const graphHost = h("div", { class: "graph-host" });
  const downloads = h("div", { class: "downloads" });
  let analysis = null;
  let bestShown = false;

  const name = (seat) => (source ? source.names[seat] : t("game.player_n", { n: seat + 1 }));
  // a match whose games rotate through rule sets (tavli) names each game's own: its frames' boards carry it
  const gameVariant = (frame) => (frame.board && frame.board.variant !== source.variant ? frame.board.variant : null);

  function describe(frame) {
    const who = frame.seat === null || frame.seat === undefined ? "" : name(frame.seat);
    switch (frame.kind) {
      case "game_started": {
        const game = gameVariant(frame);
        return game ? `${t("log.game", { n: frame.game_number })} · ${variantName(game)}` : t("log.game", { n: frame.game_number });
      }
      case "opening_rolled": {
        const dice = { a: name(0), da: frame.dice[0], b: name(1), db: frame.dice[1] };
        return frame.dice[0] === frame.dice[1] ? t("log.opening_tie", dice) : t("log.opening", dice);
      }
      case "rolled": return t("replay.rolled", { name: who, dice: formatDice(frame.dice) });
      case "passed": return `${who}: ${formatDice(frame.dice)} ${t("log.pass")}`;
      case "moved": return `${who}: ${frame.text || ""}`;
      case "doubled": return t("log.doubled", { name: who });
      case "took": return t("log.took", { name: who });
      case "beavered": return t("log.beavered", { name: who });
      case "dropped": return t("log.dropped", { name: who });
      case "resigned": return t("log.resigned", { name: who });
      case "resignation_accepted": return t("log.resignation_accepted", { name: who });
      case "resignation_declined": return t("log.resignation_declined", { name: who });
      case "timed_out": return t("log.timed_out", { name: who });
      case "forfeited": return t("log.forfeited", { name: who });
      case "game_ended": return frame.result
        ? t("log.result", { n: frame.game_number, name: name(frame.result.winner), points: frame.result.points, kind: kindName(frame.result.kind) })
        : t("replay.game_over");
      case "game_tied": return t("log.tied", { n: frame.game_number });
      case "match_ended": return t("replay.match_over");
      default: return frame.kind;
    }
  }

  /** The dice a frame shows, larger first: a roll's own dice, or for a move the roll it played (the frames do not repeat it). */
  function shownDice(i) {
    const frame = frames[i];
    if (frame.kind === "opening_rolled" || frame.kind === "game_started") return null;
    if (frame.dice) return [...frame.dice].sort((a, b) => b - a);
    if (frame.kind !== "moved") return null;
    for (let k = i - 1; k >= 0; k--) {
      const before = frames[k];
      if (before.kind === "rolled" && before.dice) return before.dice;
      if (before.kind === "opening_rolled" && before.dice) return [...before.dice].sort((a, b) => b - a);
      if (before.kind === "moved" || before.kind === "game_started") return null;
    }
    return null;
  }

  /** The analysis of the move a frame shows, once the analysis is in. */
  function judged(frame) {
    return analysis && frame.kind === "moved" ? analysis.decisionAt(frame.version) : null;
  }

  function jumpTo(source) {
    const index = frames.findIndex((frame) => frame.version === source);
    if (index >= 0) stepper.go(index);
  }

  /** A rolled frame that the same player's move or pass follows (which names its dice). */
  function isPlayed(i) {
    const next = frames[i + 1];
    return frames[i].kind === "rolled" && !!next && (next.kind === "moved" || next.kind === "passed") && next.seat === frames[i].seat;
  }

  /** The move list: every frame but the rolls that a move or a pass follows (the server records each pass). */
  function listMoves() {
    fill(moveList, frames.map((frame, i) => {
      if (isPlayed(i)) return null;
      const who = frame.seat === null || frame.seat === undefined ? "" : name(frame.seat);
      const text = frame.kind === "moved" ? [h("b", {}, who), " ", h("span", { class: "log-dice" }, formatDice(shownDice(i))), " ", frame.text || ""]
        : frame.kind === "passed" ? [h("b", {}, who), " ", h("span", { class: "log-dice" }, formatDice(frame.dice)), " ", t("log.pass")]
          : describe(frame);
      return h("li", { class: `replay-entry kind-${frame.kind}` },
        h("button", { type: "button", class: "link", "data-frame": String(i), onclick: () => stepper.go(i) }, text));
    }));
  }

  /** Mark the entry of frame `index` (or the last one before it) and keep it in view. */
  function markMove(index) {
    let current = null;
    for (const button of moveList.querySelectorAll("[data-frame]")) {
      const at = Number(button.dataset.frame) <= index;
      if (at) current = button;
      button.removeAttribute("aria-current");
    }
    if (!current) return;
    current.setAttribute("aria-current", "step");
    const box = moveList.getBoundingClientRect();
    const row = current.getBoundingClientRect();
    if (row.top < box.top) moveList.scrollTop -= box.top - row.top;
    else if (row.bottom > box.bottom) moveList.scrollTop += row.bottom - box.bottom;
  }

  /** Arrows for a move frame's steps (the mover's numbering), drawn from seat 0's side. */
  function arrowsOf(frame) {
    if (frame.kind !== "moved" || !frame.steps) return [];
    // each frame's board names its game's own variant (tavli's games are played on two boards)
    const shown = (p) => (frame.seat === 0 ? p : fromOpponent(frame.board?.variant ?? source.variant, p));
    return frame.steps.map((s) => ({ from: shown(s.source), to: shown(s.target), mine: frame.seat === 0, pending: false }));
  }

  /** Arrows for the best play the analysis found for a decision (its player's numbering), drawn from seat 0's side. */
  function bestArrows(decision, frame) {
    const shown = (p) => (decision.player === 0 ? p : fromOpponent(frame.board?.variant ?? source.variant, p));
    return (decision.best_steps || []).map((s) => ({ from: shown(s.source), to: shown(s.target), mine: decision.player === 0, pending: true }));
  }

  function show(index) {
    const frame = frames[index];
    if (boardHost.dataset.frame !== String(index)) bestShown = false;
    const decision = judged(frame);
    const b = bestShown && decision && decision.best_board ? decision.best_board : frame.board;
    if (analysis) analysis.showGame(frame.game_number);
    const game = gameVariant(frame);
    // frames are seen from seat 0; the board's pips come from the server only in live play
    const turnSeat = frame.turn;
    const white = frame.game_number in source.whites ? source.whites[frame.game_number] : source.white;
    board.render({
      orientation: getSettings().home,
      points: b.points,
      bar: b.bar,
      off: b.off,
      pinned: b.pinned,
      colours: { me: white === 0 ? "white" : "black", opp: white === 0 ? "black" : "white" },
      dice: shownDice(index) ? { values: shownDice(index), used: [], mine: turnSeat === 0 } : null,
      opening: frame.kind === "opening_rolled" ? frame.dice : null,
      cube: source.cube ? { value: frame.cube.value, owner: frame.cube.owner === null ? null : frame.cube.owner === 0 ? "me" : "opp" } : null,
      pips: frame.pips,
      arrows: bestShown && decision ? bestArrows(decision, frame) : arrowsOf(frame),
    });
    markMove(index);
    fill(caption,
      h("span", { class: "replay-score" }, t("replay.score", { a: name(0), b: name(1), sa: frame.score[0], sb: frame.score[1] }),
        game ? [" · ", h("span", { "data-game-variant": game }, variantName(game))] : null),
      h("span", { class: "replay-text", "data-kind": frame.kind }, describe(frame)),
      shownDice(index) ? h("span", { class: "log-dice" }, formatDice(shownDice(index))) : null,
      decision ? verdict(decision, index) : null);
    boardHost.dataset.frame = String(index);
    boardHost.dataset.showing = bestShown ? "best" : "played";
  }

  /** A checker play's loss and mark, the best play, and the button that draws it on the board. */
  function verdict(decision, index) {
    const lost = decision.equity_loss > 0.0005;
    return h("span", { class: "replay-verdict", "data-mark": decision.mark || "" },
      lost ? t("analysis.verdict", { loss: decision.equity_loss.toFixed(3), best: decision.best }) : t("analysis.best_played"),
      decision.mark ? h("strong", {}, ` ${markName(decision.mark)}`) : null,
      lost ? h("button", {
        type: "button", class: "link", "data-action": "show-best", "aria-pressed": bestShown ? "true" : "false",
        onclick: () => { bestShown = !bestShown; show(index); },
      }, bestShown ? t("analysis.show_played") : t("analysis.show_best")) : null);
  }

  fill(view, h("section", { class: "page replay" }, title, h("div", { class: "replay-layout" },
    h("div", { class: "replay-main" }, boardHost, graphHost),
    h("div", { class: "replay-side" }, caption, stepper.controls, stepper.field, moveList,
      h("a", { href: back.href, class: "button" }, back.text), downloads, analysisHost))));
  board = new Board(boardHost, {});

  (async () => {
    try {
      source = await load();
      // only the frames a viewer sees something happen in (e.g. not the dice seed commitments)
      frames = source.frames.filter((frame) => SHOWN.has(frame.kind));
      title.textContent = source.title;
      if (!frames.length) {
        fill(caption, t("replay.empty"));
        return;
      }
      stepper.count = frames.length;
      listMoves();
      stepper.go(0);
      if (source.downloads.length) {
        fill(downloads, h("span", { class: "hint" }, t("replay.download")), source.downloads.map((link) =>
          h("a", { href: link.href, download: link.file, "data-download": link.kind }, link.text)));
      }
      if (source.analysis) {
        analysis = analysisPanel(source.analysis, { names: name, jump: jumpTo, onResult: () => stepper.go(stepper.index) });
        fill(analysisHost, analysis.el);
        fill(graphHost, analysis.graph);
      }
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
