// The game page (#/table/ID): players, clocks, score, the board, the controls and the move list.
//
// Everything legal comes from the server: the points a checker may reach are the
// targets of `state.game.legal.steps` from its point; a click (or a drop after a drag)
// sends one step and the server answers with the new state. What a resignation costs,
// whether a play is forced and whether moves are final are the server's answers too.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { Board, FLIGHT_MS } from "./board.js";
import { fromOpponent, analysisOf } from "./variants.js";
import { icon } from "./icons.js";
import { get, post, errorText } from "./api.js";
import { currentUser, ensureUser, onUserChange } from "./session.js";
import { getSettings, saveSettings, swappedSide, onSettingsChange } from "./settings.js";
import {
  variantName, kindName, reasonName, matchLengthName, timeControlOf, ratingNote,
  formatRemaining, formatSteps, formatDice, seatName,
} from "./names.js";
import { playSound } from "./sound.js";
import { pickStep, diceFaces, highlights } from "./picking.js";
import { SeedBox } from "./fair_dice.js";
import { seatClock } from "./clocks.js";
import { playArrows } from "./play_arrows.js";
import { ChatPanel } from "./chat_panel.js";
import { reportButton } from "./report.js";

export const AUTO_CONFIRM_MS = 2500;
const AUTO_ACT_MS = 600; // the pause before an automatic roll or forced play, to see what happened
const MESSAGE_MS = 5000;

/** The body of ``POST /api/tables`` for a new table against the same computer like the one of view ``s``:
 * variant, match length, options and clock (per move, correspondence or bank). */
export function tableLikeThis(s) {
  const body = {
    variant: s.variant, match_length: s.match_length, options: s.options, rated: false, private: false,
    opponent: "computer", bot_level: s.seats.find((x) => x && x.bot)?.bot || "random",
  };
  if (s.bank_seconds_per_point) {
    body.delay_seconds = s.delay_seconds;
    body.bank_seconds_per_point = s.bank_seconds_per_point;
  } else if (s.move_seconds && s.move_seconds % 86400 === 0) body.correspondence_days = s.move_seconds / 86400;
  else if (s.move_seconds) body.move_seconds = s.move_seconds;
  return body;
}

export function mountGame(view, tableId, context) {
  const page = new GamePage(view, tableId, context);
  return () => page.destroy();
}

class GamePage {
  constructor(view, tableId, { socket, toast, navigate }) {
    this.view = view;
    this.tableId = tableId;
    this.socket = socket;
    this.toast = toast;
    this.navigate = navigate;
    this.state = null;
    this.skew = 0;
    this.selected = null;
    this.swap = false;
    this.busy = false;
    this.log = [];
    this.logVersion = 0;
    this.recordLoaded = false;
    this.early = [];
    this.names = {};
    this.gameNo = 0;
    this.pendingRoll = null;
    this.openingDice = null;
    this.lastRolls = [null, null];
    this.lastMoveGame = null;
    this.message = null;
    this.autoKey = null;
    this.autoTimer = null;
    this.endOverlay = null;
    this.dismissedFinal = false;
    this.resignMenu = false;
    this.flights = [];
    this.flightsEnd = 0;
    this.dropped = null;
    this.autoActKey = null;
    this.autoActTimer = null;
    this.chat = new ChatPanel({ socket, tableId, toast });
    this.build();
    this.board = new Board(this.boardHost, {
      onPoint: (p) => this.clickPoint(p),
      onRoll: () => this.roll(),
      onDragStart: (p) => this.dragStart(p),
      onDrop: (source, target) => this.drop(source, target),
    });
    this.unwatch = socket.watch(tableId, (update) => this.update(update));
    this.tick = setInterval(() => this.renderClocks(), 250);
    this.unsettings = onSettingsChange(() => this.render());
    this.unuser = onUserChange(() => this.render());
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
    this.loadRecord();
  }

  /** Backspace undoes the last step; Enter confirms unless it activates the focused control. */
  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const inside = (selector) => !!(target && target.closest && target.closest(selector));
    if (inside("input, select, textarea")) return;
    const g = this.state && this.state.game;
    const legal = g && g.legal;
    if (!legal || this.state.actor !== this.mySeat()) return;
    if (event.key === "Backspace" && legal.can_undo) {
      event.preventDefault();
      this.undo();
    } else if (event.key === "Enter" && legal.can_confirm && !inside("button, a, [data-point], [data-roll]")) {
      event.preventDefault();
      this.confirm();
    }
  }

  destroy() {
    this.destroyed = true;
    document.removeEventListener("keydown", this.onKey);
    this.unwatch();
    clearInterval(this.tick);
    clearTimeout(this.autoTimer);
    clearTimeout(this.autoActTimer);
    this.unsettings();
    this.unuser();
    this.chat.destroy();
  }

  // ----- layout

  build() {
    this.topPlayer = h("div", { class: "player top", "data-player": "opponent" });
    this.bottomPlayer = h("div", { class: "player bottom", "data-player": "me" });
    this.boardHost = this.boardHost || h("div", { class: "board-wrap" });
    this.info = h("div", { class: "match-info" });
    this.sidePlayers = h("div", { class: "side-players" });
    this.messageBox = h("div", { class: "message", role: "status", "aria-live": "polite", id: "game-message" });
    this.controls = h("div", { class: "controls", role: "group", "aria-label": t("game.controls") });
    this.autoBar = h("div", { class: "auto-confirm", hidden: true }, h("div", { class: "auto-confirm-fill" }));
    this.hintBox = h("div", { class: "hint-box", "aria-live": "polite", hidden: true });
    this.logBox = h("ol", { class: "move-list", "aria-label": t("game.moves") });
    this.extras = h("div", { class: "table-actions" });
    this.seeds = new SeedBox({ act: (type, fields) => this.act(type, fields), toast: this.toast });
    this.overlay = h("div", { class: "overlay", hidden: true });
    this.side = h("aside", { class: "game-side", "data-tab": "moves" },
      this.info, this.sidePlayers, this.messageBox, this.controls, this.autoBar, this.hintBox, this.sideTabs(),
      h("h2", { class: "moves-title" }, t("game.moves")), this.logBox, this.extras, this.seeds.el, this.chat.el);
    this.section = h("section", { class: "game-page" },
      h("div", { class: "game-main" }, this.topPlayer, this.boardHost, this.bottomPlayer),
      this.side,
      this.overlay,
    );
    fill(this.view, this.section);
    if (this.board) this.render();
  }

  /**
   * The tabs that show the move list or the chat below the controls on a phone held upright (app.css shows them
   * there only; elsewhere the side column shows both). The chat's tab goes where the table has no chat.
   */
  sideTabs() {
    const tab = (name, label) => h("button", {
      type: "button", role: "tab", "data-tab": name, "aria-selected": String(name === "moves"),
      onclick: () => {
        this.side.dataset.tab = name;
        for (const other of this.side.querySelectorAll("[role=tab]")) other.setAttribute("aria-selected", String(other.dataset.tab === name));
      },
    }, label);
    return h("div", { class: "side-tabs", role: "tablist" }, tab("moves", t("game.moves")), tab("chat", t("chat.title")));
  }

  // ----- data

  async loadRecord() {
    try {
      const record = await get(`/api/tables/${encodeURIComponent(this.tableId)}/record`);
      if (this.destroyed) return;
      this.tournament = record.tournament || null; // a tournament's match ends with the way back to it
      this.absorb(record.events, false);
    } catch {
      /* the table may not exist; the socket reports that */
    }
    if (this.destroyed) return;
    this.recordLoaded = true;
    const early = this.early;
    this.early = [];
    for (const events of early) this.absorb(events, true);
    this.renderLog();
    if (this.state) this.render();
  }

  update(update) {
    if (update.kind === "team" || update.kind === "chat") return; // chat: the chat panel's own
    if (update.kind === "error") {
      const m = update.message;
      if (m.code !== "no_such_table") {
        this.toast(t("error.refused", { message: m.message || m.code }), "error");
        return;
      }
      fill(this.view, h("section", { class: "page" }, h("h1", {}, t("game.not_found")), h("p", {}, m.message || ""),
        h("a", { href: "#/" }, t("nav.lobby"))));
      return;
    }
    const state = update.state;
    const previousGame = this.state && this.state.game;
    this.state = state;
    this.skew = Date.parse(state.server_time) - Date.now();
    if (!state.game || state.game.phase !== "moving") this.swap = false;
    if (previousGame && state.game && (previousGame.phase !== state.game.phase || previousGame.turn !== state.game.turn)) this.selected = null;
    if (update.kind === "events") {
      this.flights = this.flightsOf(update.events, previousGame);
      if (this.recordLoaded) this.absorb(update.events, true);
      else this.early.push(update.events);
    } else if (state.version > this.logVersion && this.recordLoaded) {
      this.loadRecord();
    }
    if (state.rematch && state.rematch.table && this.rematchAsked) {
      this.rematchAsked = false;
      this.navigate(`#/table/${state.rematch.table}`);
      return;
    }
    this.render();
  }

  /**
   * The checker flights new events show: each step as it is made, a whole move made at once
   * (the computer's, a forced play) step by step, an undone step backwards. None for a step
   * dropped here (the checker is there already) or for a catch-up of several moves.
   */
  flightsOf(events, before) {
    if (events.filter((e) => e.kind === "moved").length > 1) return [];
    const me = this.viewSeat();
    // the moves belong to the game shown before them (in tavli the next game may have begun since)
    const variant = before?.variant ?? this.state.game?.variant ?? this.state.variant;
    const shown = (seat, p) => (seat === me ? p : fromOpponent(variant, p));
    const flight = (seat, from, to) => ({ from: shown(seat, from), to: shown(seat, to), mine: seat === me });
    let made = before && before.pending ? before.pending.slice() : [];
    const flights = [];
    for (const { kind, seat, payload } of events) {
      if (kind === "stepped") {
        made.push(payload);
        const dropped = this.dropped && this.dropped.source === payload.source && this.dropped.target === payload.target;
        this.dropped = null;
        if (!dropped) flights.push(flight(seat, payload.source, payload.target));
      } else if (kind === "undone" && made.length) {
        const last = made.pop();
        flights.push(flight(seat, last.target, last.source));
      } else if (kind === "moved") {
        if (payload.steps.length !== made.length) flights.push(...payload.steps.map((s) => flight(seat, s.source, s.target)));
        made = [];
      }
    }
    this.flightsEnd = performance.now() + flights.length * FLIGHT_MS;
    return flights;
  }

  name(seat) {
    if (this.state && this.state.seats[seat]) return seatName(this.state.seats[seat]);
    return this.names[seat] || t("game.player_n", { n: seat + 1 });
  }

  mySeat() {
    const user = currentUser();
    if (!user || !this.state) return null;
    const index = this.state.seats.findIndex((s) => s && s.user_id === user.id);
    return index >= 0 ? index : null;
  }

  absorb(events, live) {
    for (const event of events) {
      if (event.version <= this.logVersion) continue;
      this.logVersion = event.version;
      this.absorbOne(event, live);
    }
    this.renderLog();
  }

  absorbOne(event, live) {
    const { kind, seat, payload } = event;
    switch (kind) {
      case "seated":
        this.names[payload.seat] = seatName(payload);
        break;
      case "game_started":
        this.gameNo = payload.number;
        this.pendingRoll = null;
        this.lastRolls = [null, null];
        this.log.push({ type: "game", number: payload.number });
        break;
      case "opening_rolled": {
        // who plays first is the server's word (`first`; null for a tie; absent from older records)
        const dice = payload.dice;
        this.log.push({ type: "opening", dice });
        if (payload.first !== undefined && payload.first !== null) this.openingDice = { seat: payload.first, dice };
        if (live) playSound("dice");
        break;
      }
      case "rolled":
        this.pendingRoll = { seat, dice: payload.dice };
        this.lastRolls[seat] = payload.dice;
        if (live) playSound("dice");
        break;
      case "passed":
        this.pendingRoll = null;
        this.openingDice = null;
        this.log.push({ type: "pass", seat, dice: payload.dice });
        if (live) {
          const dice = formatDice(payload.dice);
          this.flash(seat === this.mySeat() ? t("game.no_moves_you", { dice })
            : t("game.no_moves_other", { name: this.name(seat), dice }), "pass");
        }
        break;
      case "stepped":
      case "undone":
        if (live) playSound("move");
        break;
      case "moved": {
        let dice = null;
        if (this.pendingRoll && this.pendingRoll.seat === seat) dice = this.pendingRoll.dice;
        else if (this.openingDice && this.openingDice.seat === seat) dice = this.openingDice.dice;
        this.log.push({ type: "move", seat, dice, steps: payload.steps });
        this.pendingRoll = null;
        this.openingDice = null;
        this.lastMoveGame = this.gameNo;
        if (live) playSound("move");
        break;
      }
      case "doubled":
      case "took":
      case "beavered":
      case "dropped":
      case "resignation_accepted":
      case "resignation_declined":
      case "timed_out":
      case "forfeited":
      case "rematch_offered":
      case "left":
        this.log.push({ type: kind, seat });
        break;
      case "resigned":
        this.log.push({ type: kind, seat, kind: payload.kind });
        break;
      case "game_ended":
        this.pendingRoll = null;
        this.log.push({ type: "result", number: payload.number, result: payload.result });
        if (live) {
          playSound("end");
          this.message = null;
          this.endOverlay = { number: payload.number, result: payload.result };
          const settings = getSettings();
          if (settings.autoSwap) {
            saveSettings({ home: swappedSide(settings.home) });
            this.flash(t("game.sides_swapped"));
          }
        }
        break;
      case "game_tied":
        // the play before it tied the game (plakoto: both mothers pinned); it starts again from its opening roll
        this.log.push({ type: "tied", number: payload.number });
        this.lastMoveGame = null;  // the board is the start again: the tying play's arrows belong to the game before
        if (live) this.flash(t("log.tied", { n: payload.number }));
        break;
      case "match_ended":
        this.log.push({ type: "match", winner: payload.winner, reason: payload.reason, score: payload.score });
        break;
      default:
        break;
    }
  }

  flash(text, kind = "info") {
    this.message = { text, kind, until: Date.now() + MESSAGE_MS };
    this.renderMessage();
    setTimeout(() => this.renderMessage(), MESSAGE_MS + 50);
  }

  // ----- actions

  async act(t_, fields = {}) {
    if (this.busy) return null;
    this.busy = true;
    try {
      return await this.socket.act(this.tableId, t_, fields);
    } catch (error) {
      this.toast(t("error.refused", { message: error.message || String(error) }), "error");
      return null;
    } finally {
      this.busy = false;
    }
  }

  canMove() {
    const s = this.state;
    const me = this.mySeat();
    return !!(s && s.game && me !== null && s.actor === me && s.game.phase === "moving" && s.game.legal && s.game.legal.steps);
  }

  roll() {
    const s = this.state;
    if (!s || !s.game || s.actor !== this.mySeat() || s.game.phase !== "rolling") return;
    this.act("roll");
  }

  clickPoint(p) {
    if (!this.canMove() || this.busy) return;
    const choice = pickStep(this.state.game.legal.steps, this.selected, p, this.swap);
    if (choice.step) {
      this.step(choice.step.source, choice.step.die);
      return;
    }
    this.selected = choice.select;
    this.render();
  }

  /** A drag picked up a movable checker: its targets light up as for a click. */
  dragStart(p) {
    if (!this.canMove() || this.busy) return;
    this.selected = p;
    this.render();
  }

  /** A dragged checker let go over `target`: the step a click there would make, or back it goes. */
  drop(source, target) {
    const choice = this.canMove() && !this.busy && target !== null && target !== source
      ? pickStep(this.state.game.legal.steps, source, target, this.swap) : {};
    if (!choice.step) {
      this.selected = null;
      this.render();
      return;
    }
    this.dropped = { source, target };
    // drawn again once answered, so a refused drop puts the lifted checker back as well
    this.step(choice.step.source, choice.step.die).then(() => this.render());
  }

  async step(source, die) {
    this.selected = null;
    await this.act("step", { source, die });
  }

  /**
   * The automatic actions of the settings, on my turn: a roll when there is no cube decision
   * (the server says whether one may double), and the play when the server names it as the
   * only legal one. Each state version acts once, after the checkers have landed.
   */
  autoAct() {
    const s = this.state;
    const g = s.game;
    const me = this.mySeat();
    if (!g || me === null || s.status !== "playing" || s.actor !== me || this.autoActKey === s.version) return;
    const settings = getSettings();
    const legal = g.legal || {};
    let action = null;
    if (settings.autoRoll && g.phase === "rolling" && !legal.can_double) action = ["roll", {}];
    else if (settings.autoForced && g.phase === "moving" && legal.only_play && !(g.pending && g.pending.length)) {
      action = ["move", { steps: legal.only_play.map(({ source, target, die }) => ({ source, target, die })) }];
    }
    if (!action) return;
    const version = s.version;
    this.autoActKey = version;
    clearTimeout(this.autoActTimer);
    this.autoActTimer = setTimeout(() => {
      if (this.destroyed || !this.state || this.state.version !== version) return;
      if (this.busy) {
        this.autoActKey = null;
        this.autoAct();
        return;
      }
      this.act(...action);
    }, AUTO_ACT_MS + Math.max(0, this.flightsEnd - performance.now()));
  }

  async undo() {
    this.selected = null;
    await this.act("undo");
  }

  async confirm() {
    clearTimeout(this.autoTimer);
    this.autoKey = null;
    this.selected = null;
    await this.act("confirm");
  }

  /** Against the computer: a rematch (the computer agrees at once), or a new table like this one. */
  async playAgain() {
    this.rematchAsked = true;
    if (await this.act("rematch")) return;
    this.rematchAsked = false;
    try {
      await ensureUser();
      const created = await post("/api/tables", tableLikeThis(this.state));
      this.navigate(`#/table/${created.table.table}`);
    } catch (error) {
      this.toast(errorText(error), "error");
    }
  }

  async join() {
    try {
      await ensureUser();
      this.socket.reconnect();
      await post(`/api/tables/${encodeURIComponent(this.tableId)}/join`, {});
    } catch (error) {
      this.toast(errorText(error), "error");
    }
  }

  // ----- rendering

  render() {
    const s = this.state;
    if (this.destroyed) return;
    if (!s) {
      fill(this.messageBox, t("common.loading"));
      return;
    }
    const section = this.section;
    if (section) {
      section.dataset.version = String(s.version);
      section.dataset.status = s.status;
      section.dataset.phase = s.game ? s.game.phase : "";
      section.dataset.myTurn = String(this.mySeat() !== null && s.actor === this.mySeat());
    }
    this.renderInfo();
    this.renderPlayers();
    this.renderSidePlayers();
    this.renderBoard();
    this.renderMessage();
    this.renderControls();
    this.renderAutoConfirm();
    this.renderExtras();
    this.renderOverlay();
    this.renderClocks();
    this.autoAct();
  }

  viewSeat() {
    const me = this.mySeat();
    return me === null ? 0 : me;
  }

  colourOf(seat) {
    const g = this.state.game;
    if (!g) return seat === 0 ? "white" : "black";
    return seat === g.white ? "white" : "black";
  }

  renderInfo() {
    const s = this.state;
    const parts = [h("span", { class: "variant" }, variantName(s.variant))];
    // a match whose games rotate through rule sets (tavli) names the game in play: its rules are that game's
    const game = s.game?.variant;
    if (game && game !== s.variant) parts.push(h("span", { class: "badge", "data-game-variant": game }, variantName(game)));
    parts.push(h("span", {}, matchLengthName(s.match_length)));
    if (s.move_seconds || s.delay_seconds) parts.push(h("span", { "data-time-control": "" }, timeControlOf(s)));
    const rating = ratingNote(s);
    if (rating) parts.push(h("span", { class: "badge", "data-rated": String(rating.counts) }, rating.text));
    if (s.stake) {
      parts.push(h("span", { class: "badge", "data-stake": String(s.stake), title: t("coins.note") },
        t("coins.at_stake", { stake: s.stake, total: s.coins_at_stake })));
    }
    if (s.match && s.match.crawford) parts.push(h("span", { class: "badge", title: t("game.crawford_hint") }, t("game.crawford")));
    if (s.options.moves_final) parts.push(h("span", { class: "badge", "data-moves-final": "", title: t("game.moves_final_hint") }, t("game.moves_final")));
    if (this.mySeat() === null && s.status !== "waiting") parts.push(h("span", { class: "badge" }, t("game.watching")));
    fill(this.info, parts);
  }

  renderPlayers() {
    const s = this.state;
    const me = this.viewSeat();
    for (const [el, seat] of [[this.bottomPlayer, me], [this.topPlayer, 1 - me]]) {
      const g = s.game;
      const score = s.match ? s.match.score[seat] : 0;
      const toMove = s.actor === seat;
      el.classList.toggle("to-move", toMove);
      el.dataset.seat = String(seat);
      const timeouts = s.match && s.match.timeouts[seat] ? h("span", { class: "timeouts", title: t("game.timeouts_hint") }, icon("clock"), `×${s.match.timeouts[seat]}`) : null;
      fill(el,
        h("span", { class: `chip ${this.colourOf(seat)}`, "aria-hidden": "true" }),
        h("span", { class: "name" }, this.name(seat)),
        h("span", { class: "score", title: t("game.score") }, String(score)),
        g ? h("span", { class: "pip-count", title: t("board.pips") }, `${t("board.pips")} ${g.pips[seat]}`) : null,
        timeouts,
        h("span", { class: "clock", "data-clock": String(seat) }),
        this.reportable(seat) ? reportButton(s.seats[seat].name, this.tableId, this.toast) : null,
      );
    }
  }

  /** Whether the signed-in viewer may report the player in `seat` from here: a person, and not themself. */
  reportable(seat) {
    const user = currentUser();
    const player = this.state.seats[seat];
    return Boolean(user && player && !player.bot && player.user_id !== null && player.user_id !== user.id);
  }

  renderSidePlayers() {
    const s = this.state;
    const me = this.viewSeat();
    fill(this.sidePlayers, [1 - me, me].map((seat) => h("div", { class: `side-player${s.actor === seat ? " to-move" : ""}` },
      h("span", { class: `chip ${this.colourOf(seat)}`, "aria-hidden": "true" }),
      h("span", { class: "name" }, this.name(seat)),
      h("span", { class: "score" }, String(s.match ? s.match.score[seat] : 0)),
      h("span", { class: "clock", "data-clock": String(seat) }))));
  }

  renderClocks() {
    const s = this.state;
    if (!s) return;
    for (const el of this.view.querySelectorAll("[data-clock]")) {
      const clock = seatClock(s, Number(el.dataset.clock), Date.now() + this.skew);
      if (clock) {
        // A bank clock shows the delay left (while it runs) and the bank beside it; a per-move limit its time left.
        const delay = clock.delay ? h("span", { class: "delay", "data-delay": "" }, t("game.delay", { time: formatRemaining(clock.delay) })) : null;
        const bank = clock.bank !== null ? h("span", { class: "bank", "data-bank": "" }, t("game.bank", { time: formatRemaining(clock.bank) })) : null;
        fill(el, delay, delay && bank ? " · " : null, bank, clock.left !== null ? formatRemaining(clock.left) : null);
        el.classList.toggle("low", clock.low);
        el.hidden = false;
      } else {
        el.textContent = "";
        el.hidden = true;
      }
    }
    if (this.message && Date.now() > this.message.until) {
      this.message = null;
      this.renderMessage();
    }
  }

  diceView() {
    const g = this.state.game;
    if (!g || !g.dice || g.phase === "finished") return null;
    return { ...diceFaces(g.dice, g.pending, this.swap), mine: g.turn === this.viewSeat() };
  }

  renderBoard() {
    const s = this.state;
    const g = s.game;
    const me = this.viewSeat();
    const opp = 1 - me;
    const settings = getSettings();
    if (!g) {
      this.board.render({ orientation: settings.home, points: new Array(24).fill(0), bar: [0, 0], off: [0, 0] });
      return;
    }
    const board = g.boards[me];
    const canMove = this.canMove();
    const steps = canMove ? g.legal.steps : [];
    const { movable, selected, targets } = highlights(steps, this.selected);
    this.selected = selected;
    const convert = (steps_, seat, pending) => steps_.map((x) => ({
      from: seat === me ? x.source : fromOpponent(g.variant ?? s.variant, x.source),
      to: seat === me ? x.target : fromOpponent(g.variant ?? s.variant, x.target),
      mine: seat === me,
      pending,
    }));
    let arrows = [];
    if (g.pending && g.pending.length) arrows = convert(g.pending, g.turn, true);
    else if (s.last_move && this.lastMoveGame === s.game_number && g.phase !== "finished") arrows = convert(s.last_move.steps, s.last_move.seat, false);
    else if (s.last_move && g.phase === "finished") arrows = convert(s.last_move.steps, s.last_move.seat, false);
    if (this.hintArrows && this.hintVersion === s.version && !(g.pending && g.pending.length)) arrows = this.hintArrows;
    let oppLast = this.lastRolls[opp];
    if (!oppLast && s.last_move && s.last_move.seat === opp) oppLast = s.last_move.dice;
    if (oppLast) oppLast = [...oppLast].sort((a, b) => b - a); // larger first, as everywhere
    this.board.render({
      orientation: settings.home,
      points: board.points,
      bar: board.bar,
      off: board.off,
      pinned: board.pinned,
      colours: { me: this.colourOf(me), opp: this.colourOf(opp) },
      dice: this.diceView(),
      rollable: this.mySeat() !== null && s.actor === me && g.phase === "rolling",
      oppLastDice: g.turn === me || g.phase === "finished" ? oppLast : null,
      cube: s.options.cube ? {
        value: g.cube.value,
        owner: g.cube.owner === null || g.cube.owner === undefined ? null : g.cube.owner === me ? "me" : "opp",
        offered: g.phase === "doubled",
      } : null,
      pips: [g.pips[me], g.pips[opp]],
      movable,
      selected: this.selected,
      targets,
      arrows,
      flights: this.flights,
    });
    this.flights = [];
  }

  statusText() {
    const s = this.state;
    const g = s.game;
    const me = this.mySeat();
    if (s.status === "waiting") return me !== null ? t("game.waiting_opponent") : t("game.waiting_table");
    if (s.status === "finished") return t("game.match_over");
    if (!g) return "";
    const actor = s.actor;
    const other = actor === null ? "" : this.name(actor);
    if (g.phase === "opening") return t("game.opening");
    if (actor === null) return "";
    if (me !== null && actor === me) {
      if (g.phase === "rolling") return g.legal && g.legal.can_double ? t("game.your_turn_roll_or_double") : t("game.your_turn_roll");
      if (g.phase === "moving") {
        if (g.legal && g.legal.can_confirm) return t("game.confirm_or_undo");
        if (this.selected !== null) return t("game.pick_target");
        return g.pending && g.pending.length ? t("game.play_rest") : t("game.your_move", { dice: formatDice(g.dice) });
      }
      if (g.phase === "doubled") return t("game.double_offered", { name: this.name(1 - me), value: g.cube.value * 2 });
      if (g.phase === "resignation" && g.resignation) {
        return t("game.resignation_offered", { name: this.name(g.resignation.seat), kind: kindName(g.resignation.kind) });
      }
    }
    if (g.phase === "doubled") return t("game.waiting_double_answer", { name: other });
    if (g.phase === "resignation") return t("game.waiting_resignation_answer", { name: other });
    if (g.phase === "moving" && g.dice) return t("game.other_moving", { name: other, dice: formatDice(g.dice) });
    return t("game.other_to_play", { name: other });
  }

  renderMessage() {
    if (!this.state) return;
    const transient = this.message && Date.now() <= this.message.until ? this.message : null;
    this.messageBox.className = `message${transient ? ` flash ${transient.kind}` : ""}`;
    this.messageBox.dataset.kind = transient ? transient.kind : "status";
    fill(this.messageBox, transient ? transient.text : this.statusText());
  }

  button(label, onclick, props = {}) {
    return h("button", { type: "button", onclick, ...props }, label);
  }

  renderControls() {
    const s = this.state;
    const g = s.game;
    const me = this.mySeat();
    const out = [];
    if (s.status === "waiting") {
      if (me === null) out.push(this.button(t("game.join"), () => this.join(), { class: "primary", "data-action": "join" }));
      else out.push(this.button(t("game.leave_table"), () => this.act("leave"), { "data-action": "leave" }));
    } else if (s.status === "playing" && g && me !== null) {
      const mine = s.actor === me;
      const legal = g.legal || {};
      if (mine && g.phase === "rolling") {
        out.push(this.button([icon("dice"), t("game.roll")], () => this.roll(), { class: "primary", "data-action": "roll" }));
        if (legal.can_double) {
          const now = g.cube.value;
          out.push(h("div", { class: "cube-offer" },
            this.button(t("game.double", { value: now * 2 }), () => this.act("double"), { "data-action": "double" }),
            h("small", { class: "hint" }, t("game.double_explain", { next: now * 2, now }))));
        }
      } else if (mine && g.phase === "moving") {
        const twoDice = g.dice && g.dice[0] !== g.dice[1] && !(g.pending && g.pending.length);
        if (!s.options.moves_final) {
          // with moves final a step stands and the last one ends the turn (the server plays it so)
          out.push(this.button([icon("undo"), t("game.undo")], () => this.undo(), { disabled: !legal.can_undo, "data-action": "undo", "aria-keyshortcuts": "Backspace" }));
          out.push(this.button([icon("confirm"), t("game.confirm")], () => this.confirm(), { class: legal.can_confirm ? "primary" : "", disabled: !legal.can_confirm, "data-action": "confirm", "aria-keyshortcuts": "Enter" }));
        }
        if (twoDice) {
          out.push(this.button([icon("swap"), t("game.swap_dice")], () => { this.swap = !this.swap; this.render(); },
            { "data-action": "swap", title: t("game.swap_dice_hint"), "aria-pressed": this.swap ? "true" : "false" }));
        }
      } else if (mine && g.phase === "doubled") {
        const now = g.cube.value;
        out.push(h("p", { class: "hint" }, t("game.take_explain", { next: now * 2, now })));
        out.push(this.button(t("game.take"), () => this.act("take"), { class: "primary", "data-action": "take" }));
        out.push(this.button(t("game.drop"), () => this.act("drop"), { "data-action": "drop" }));
        if (legal.can_beaver) {
          out.push(this.button(t("game.beaver", { value: now * 4 }), () => this.act("beaver"), { "data-action": "beaver", title: t("game.beaver_hint") }));
        }
      } else if (mine && g.phase === "resignation") {
        out.push(this.button(t("game.accept"), () => this.act("accept_resignation"), { class: "primary", "data-action": "accept-resignation" }));
        out.push(this.button(t("game.decline"), () => this.act("decline_resignation"), { "data-action": "decline-resignation" }));
      }
    }
    if (this.hintAllowed()) {
      out.push(this.button(t("game.hint"), () => this.showHint(), { "data-action": "hint", class: "subtle" }));
    }
    if (this.hintVersion !== s.version) this.hintBox.hidden = true;
    fill(this.controls, out);
  }

  /** Hints: in games against the computer that are not rated, on the player's own decision, where the engine
   * of the game in play gives them (GET /api/variants: `analysis`); the server checks. */
  hintAllowed() {
    const s = this.state;
    const g = s.game;
    const me = this.mySeat();
    if (s.status !== "playing" || !g || me === null || s.actor !== me || s.rated) return false;
    const opponent = s.seats[1 - me];
    if (!opponent || !opponent.bot) return false;
    if (!analysisOf(g.variant ?? s.variant).levels.length) return false;  // the game's engine rates no equities
    return (g.phase === "moving" && !(g.pending && g.pending.length)) || (g.phase === "rolling" && g.legal && g.legal.can_double);
  }

  async showHint() {
    const version = this.state.version;
    try {
      const hint = await post(`/api/tables/${encodeURIComponent(this.tableId)}/hint`, {});
      if (this.state.version !== version) return;
      this.hintVersion = version;
      this.hintBox.hidden = false;
      if (hint.cube) {
        const c = hint.cube;
        fill(this.hintBox, h("p", { "data-hint": "cube" }, c.should_double ? t("game.hint_double") : t("game.hint_no_double"),
          ` (${t("board.cube_equities", { nd: c.no_double.toFixed(3), dt: c.double_take.toFixed(3), dp: c.double_pass.toFixed(3) })})`));
        return;
      }
      this.hintArrows = hint.plays.length ? playArrows(hint.plays[0]) : null;
      this.renderBoard();
      const best = hint.plays.length ? hint.plays[0].equity : 0;
      fill(this.hintBox, h("ol", { class: "hint-plays" }, hint.plays.map((play, i) => h("li", { "data-hint": String(i + 1) },
        h("span", { class: "play" }, play.text),
        h("span", { class: "equity" }, ` ${play.equity >= 0 ? "+" : ""}${play.equity.toFixed(3)}`),
        i ? h("span", { class: "loss" }, ` (${(play.equity - best).toFixed(3)})`) : null))));
    } catch (error) {
      this.toast(errorText(error), "error");
    }
  }

  renderAutoConfirm() {
    const s = this.state;
    const g = s.game;
    const on = getSettings().autoConfirm && g && s.actor === this.mySeat() && this.mySeat() !== null
      && g.phase === "moving" && g.legal && g.legal.can_confirm;
    const key = on ? `${s.version}` : null;
    if (key === this.autoKey) return;
    clearTimeout(this.autoTimer);
    this.autoKey = key;
    this.autoBar.hidden = !on;
    if (!on) return;
    const fillBar = this.autoBar.firstChild;
    fillBar.style.animation = "none";
    void fillBar.offsetWidth;
    fillBar.style.animation = `auto-confirm ${AUTO_CONFIRM_MS}ms linear forwards`;
    this.autoTimer = setTimeout(() => {
      if (this.autoKey === key) this.confirm();
    }, AUTO_CONFIRM_MS);
  }

  renderExtras() {
    const s = this.state;
    const me = this.mySeat();
    const out = [];
    const invite = sessionStorage.getItem(`nardy.invite.${this.tableId}`);
    if (s.status === "waiting" && invite && me !== null) {
      const link = `${location.origin}${location.pathname}#/invite/${invite}`;
      out.push(h("div", { class: "invite" },
        h("label", {}, t("game.invite_link"), h("input", { type: "text", readonly: true, value: link, "data-invite": link, onfocus: (e) => e.target.select() })),
        this.button(t("game.copy"), () => navigator.clipboard && navigator.clipboard.writeText(link).then(() => this.toast(t("game.copied"))))));
    }
    const resign = s.game && s.game.resign;
    if (s.status === "playing" && me !== null && resign) {
      // what resigning costs is the server's (the rules') answer: the offers, or the result now
      const choices = resign.choices[me];
      if (resign.offers) {
        out.push(this.button([icon("flag"), t("game.resign")], () => { this.resignMenu = !this.resignMenu; this.renderExtras(); },
          { "data-action": "resign", "aria-expanded": this.resignMenu ? "true" : "false" }));
        if (this.resignMenu) {
          out.push(h("div", { class: "resign-menu" },
            h("small", { class: "hint" }, t("game.resign_offer_hint")),
            choices.map((choice) => this.button(t("game.resign_choice", { kind: kindName(choice.kind), points: choice.points }), () => {
              this.resignMenu = false;
              this.act("resign", { kind: choice.kind });
            }, { "data-resign": choice.kind, "data-points": String(choice.points) }))));
        }
      } else {
        const cost = choices[0];
        out.push(this.button([icon("flag"), t("game.resign")], () => {
          if (confirm(t("game.resign_confirm", { kind: kindName(cost.kind), points: cost.points }))) this.act("resign");
        }, { "data-action": "resign", "data-resign": cost.kind, "data-points": String(cost.points) }));
      }
      out.push(this.button(t("game.leave_match"), () => {
        if (confirm(t("game.leave_confirm"))) this.act("leave");
      }, { "data-action": "forfeit", class: "subtle" }));
    }
    if (s.status === "finished") {
      out.push(h("a", { href: `#/replay/${this.tableId}`, class: "button" }, t("game.replay")));
    }
    this.renderSeeds();
    out.push(this.button([icon("fullscreen"), h("span", { class: "label" }, t("game.fullscreen"))], () => toggleFullscreen(), { class: "subtle fullscreen", title: t("game.fullscreen") }));
    fill(this.extras, out);
  }

  /** Provably fair dice (fair_dice.js): the seed hashes, the client seeds, and one's own client seed. */
  renderSeeds() {
    const s = this.state;
    const me = this.mySeat();
    const next = s.next_commitment;
    this.seeds.update({
      shown: me !== null && s.status !== "finished",
      current: { commitment: s.commitment, clientSeeds: s.client_seeds },
      next: next && { label: t("game.next_commitment", { n: next.game }), commitment: next.commitment },
      mine: me !== null && s.seats && s.seats[me] ? s.seats[me].client_seed : null,
    });
  }

  renderLog() {
    if (!this.logBox) return;
    const items = this.log.map((entry) => {
      const who = entry.seat !== undefined && entry.seat !== null ? this.name(entry.seat) : "";
      switch (entry.type) {
        case "game": return h("li", { class: "log-game" }, t("log.game", { n: entry.number }));
        case "opening": {
          const dice = { a: this.name(0), da: entry.dice[0], b: this.name(1), db: entry.dice[1] };
          return h("li", {}, entry.dice[0] === entry.dice[1] ? t("log.opening_tie", dice) : t("log.opening", dice));
        }
        case "move": return h("li", { class: "log-move" }, h("b", {}, who), " ", entry.dice ? h("span", { class: "log-dice" }, formatDice(entry.dice)) : null, " ", formatSteps(entry.steps));
        case "pass": return h("li", { class: "log-move pass" }, h("b", {}, who), " ", h("span", { class: "log-dice" }, formatDice(entry.dice)), " ", t("log.pass"));
        case "doubled": return h("li", {}, t("log.doubled", { name: who }));
        case "took": return h("li", {}, t("log.took", { name: who }));
        case "beavered": return h("li", {}, t("log.beavered", { name: who }));
        case "dropped": return h("li", {}, t("log.dropped", { name: who }));
        case "resigned": return h("li", {}, entry.kind ? t("log.resigned_kind", { name: who, kind: kindName(entry.kind) }) : t("log.resigned", { name: who }));
        case "resignation_accepted": return h("li", {}, t("log.resignation_accepted", { name: who }));
        case "resignation_declined": return h("li", {}, t("log.resignation_declined", { name: who }));
        case "timed_out": return h("li", {}, t("log.timed_out", { name: who }));
        case "forfeited": return h("li", {}, t("log.forfeited", { name: who }));
        case "left": return h("li", {}, t("log.left", { name: who }));
        case "rematch_offered": return h("li", {}, t("log.rematch_offered", { name: who }));
        case "result": return h("li", { class: "log-result" }, t("log.result", {
          n: entry.number, name: this.name(entry.result.winner), points: entry.result.points, kind: kindName(entry.result.kind),
        }));
        case "tied": return h("li", { class: "log-result", "data-tied": "" }, t("log.tied", { n: entry.number }));
        case "match": return h("li", { class: "log-result" }, t("log.match", { name: this.name(entry.winner), score: entry.score.join(" : ") }));
        default: return null;
      }
    });
    fill(this.logBox, items);
    this.logBox.scrollTop = this.logBox.scrollHeight;
  }

  resultLines(result) {
    const me = this.mySeat();
    const title = me === null ? t("end.wins", { name: this.name(result.winner) })
      : result.winner === me ? t("end.you_won") : t("end.you_lost");
    const detail = t("end.detail", { kind: kindName(result.kind), points: result.points, reason: reasonName(result.reason) });
    return { title, detail };
  }

  renderOverlay() {
    const s = this.state;
    const me = this.mySeat();
    let content = null;
    if (s.status === "finished" && !this.dismissedFinal) {
      const match = s.match;
      const result = s.last_result;
      const won = me !== null && match && match.winner === me;
      const title = me === null ? t("end.match_wins", { name: this.name(match ? match.winner : 0) })
        : won ? t("end.you_won_match") : t("end.you_lost_match");
      const lines = [];
      if (result && match && match.ended_by === "score") lines.push(this.resultLines(result).detail);
      if (match && match.ended_by !== "score") lines.push(reasonName(match.ended_by));
      if (match) lines.push(t("end.final_score", { a: this.name(me ?? 0), b: this.name(1 - (me ?? 0)), sa: match.score[me ?? 0], sb: match.score[1 - (me ?? 0)] }));
      const rating = ratingNote(s);
      if (rating) lines.push(rating.text);  // a rated table's verdict: counted, or why not
      if (s.stake && match && match.winner !== null) {
        const coins = s.coins_at_stake;
        lines.push(me === null ? t("coins.match_paid", { name: this.name(match.winner), coins })
          : won ? t("coins.you_won", { coins }) : t("coins.you_lost", { coins }));
      }
      const buttons = [];
      const bot = s.seats.some((x) => x && x.bot);
      if (me !== null) {
        if (this.tournament) buttons.push(h("a", { href: `#/tournament/${encodeURIComponent(this.tournament)}`, class: "button primary", "data-action": "back-to-tournament" }, t("end.back_to_tournament")));
        else if (s.rematch.table) buttons.push(this.button(t("end.go_rematch"), () => this.navigate(`#/table/${s.rematch.table}`), { class: "primary", "data-action": "go-rematch" }));
        else if (bot) buttons.push(this.button(t("end.play_again"), () => this.playAgain(), { class: "primary", "data-action": "play-again" }));
        else if (s.rematch.table) buttons.push(this.button(t("end.go_rematch"), () => this.navigate(`#/table/${s.rematch.table}`), { class: "primary", "data-action": "go-rematch" }));
        else if (s.rematch.offers.includes(me)) buttons.push(h("p", { class: "hint" }, t("end.rematch_waiting")));
        else {
          const offered = s.rematch.offers.length > 0;
          buttons.push(this.button(offered ? t("end.accept_rematch") : t("end.rematch"), () => { this.rematchAsked = true; this.act("rematch"); },
            { class: "primary", "data-action": "rematch" }));
          if (offered) buttons.push(h("p", { class: "hint" }, t("end.rematch_offered", { name: this.name(1 - me) })));
        }
      }
      buttons.push(h("a", { href: `#/replay/${this.tableId}`, class: "button", "data-action": "replay" }, t("game.replay")));
      buttons.push(h("a", { href: "#/", class: "button", "data-action": "lobby" }, t("end.lobby")));
      buttons.push(this.button(t("end.close"), () => { this.dismissedFinal = true; this.renderOverlay(); }, { class: "subtle", "data-action": "close" }));
      content = [h("h2", { id: "end-title" }, title), lines.map((line) => h("p", {}, line)), h("div", { class: "end-buttons" }, buttons)];
      this.overlay.dataset.end = "match";
      this.overlay.classList.toggle("won", !!won);
    } else if (this.endOverlay && s.status === "playing") {
      const { title, detail } = this.resultLines(this.endOverlay.result);
      const match = s.match;
      content = [
        h("h2", { id: "end-title" }, title),
        h("p", {}, detail),
        match ? h("p", {}, t("end.score_now", { a: this.name(this.viewSeat()), b: this.name(1 - this.viewSeat()), sa: match.score[this.viewSeat()], sb: match.score[1 - this.viewSeat()] })) : null,
        h("div", { class: "end-buttons" }, this.button(t("end.next_game"), () => { this.endOverlay = null; this.renderOverlay(); }, { class: "primary", "data-action": "next-game" })),
      ];
      this.overlay.dataset.end = "game";
      this.overlay.classList.toggle("won", this.endOverlay.result.winner === me);
    }
    this.overlay.hidden = !content;
    if (content) {
      fill(this.overlay, h("div", { class: "end-card", role: "dialog", "aria-modal": "false", "aria-labelledby": "end-title" }, content));
    } else {
      this.overlay.replaceChildren();
    }
  }
}

function toggleFullscreen() {
  const root = document.documentElement;
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  else if (root.requestFullscreen) root.requestFullscreen().then(() => {
    if (screen.orientation && screen.orientation.lock) screen.orientation.lock("landscape").catch(() => {});
  }).catch(() => {});
}
