// The chouette page (#/chouette/ID): the box against a team (docs/chouette.md).
//
// Everything comes from the state view: roles, stakes, who the table waits for
// (`game.awaiting`), and for the board actor (the box, or the acting captain)
// the legal next steps. The board is drawn from the viewer's side: the box sees
// the box's side, everyone else the team's.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { Board } from "./board.js";
import { fromOpponent } from "./variants.js";
import { post, errorText } from "./api.js";
import { currentUser, ensureSignedIn, onUserChange } from "./session.js";
import { getSettings, onSettingsChange } from "./settings.js";
import { timeControlName, formatRemaining, formatDice, formatSteps, variantName } from "./names.js";
import { pickStep, diceFaces, highlights } from "./picking.js";
import { playSound } from "./sound.js";
import { playersList, formationView, resultsTable, roleOf, roleName, signed } from "./chouette_view.js";
import { TeamPanel } from "./chouette_panel.js";
import { SeedBox } from "./fair_dice.js";
import { icon } from "./icons.js";

const MIN_PLAYERS = 3;
const MESSAGE_MS = 5000;
const COLOURS = { box: "black", team: "white" };
// What the team said at each table this visit: the server never stores it, and a redraw (a language change) keeps it.
const teamLogs = new Map();

export function mountChouette(view, tableId, context) {
  const page = new ChouettePage(view, tableId, context);
  return () => page.destroy();
}

class ChouettePage {
  constructor(view, tableId, { socket, toast }) {
    this.view = view;
    this.tableId = tableId;
    this.socket = socket;
    this.toast = toast;
    this.state = null;
    this.skew = 0;
    this.selected = null;
    this.swap = false;
    this.busy = false;
    this.names = new Map();
    this.message = null;
    this.seenResults = null;
    this.takes = new Map(); // the box's choice per member on a team double
    this.build();
    this.board = new Board(this.boardHost, { onPoint: (p) => this.clickPoint(p), onRoll: () => this.roll() });
    this.unwatch = socket.watch(tableId, (update) => this.update(update));
    this.tick = setInterval(() => this.renderClocks(), 250);
    this.unsettings = onSettingsChange(() => this.render());
    this.unuser = onUserChange(() => this.render());
    this.onKey = (event) => this.key(event);
    document.addEventListener("keydown", this.onKey);
  }

  destroy() {
    this.destroyed = true;
    document.removeEventListener("keydown", this.onKey);
    this.unwatch();
    clearInterval(this.tick);
    this.unsettings();
    this.unuser();
  }

  // ----- layout

  build() {
    this.topPlayer = h("div", { class: "player top", "data-side-bar": "top" });
    this.bottomPlayer = h("div", { class: "player bottom", "data-side-bar": "bottom" });
    this.boardHost = h("div", { class: "board-wrap" });
    this.info = h("div", { class: "match-info" });
    this.messageBox = h("div", { class: "message", role: "status", "aria-live": "polite", id: "chouette-message" });
    this.controls = h("div", { class: "controls", role: "group", "aria-label": t("game.controls") });
    this.lastBox = h("p", { class: "hint last-move", "data-last-move": "" });
    this.playersBox = h("div", { class: "chouette-players-box" });
    this.formationBox = h("div", {});
    this.resultsBox = h("div", { class: "chouette-results-box" });
    this.extras = h("div", { class: "table-actions" });
    this.seeds = new SeedBox({ act: (type, fields) => this.act(type, fields), toast: this.toast, hint: t("chouette.fair_dice_hint") });
    if (!teamLogs.has(this.tableId)) teamLogs.set(this.tableId, []);
    this.panel = new TeamPanel({ send: (fields) => this.say(fields), name: (uid) => this.name(uid), messages: teamLogs.get(this.tableId) });
    this.section = h("section", { class: "game-page chouette-page" },
      h("div", { class: "game-main" }, this.topPlayer, this.boardHost, this.bottomPlayer),
      h("aside", { class: "game-side" },
        this.info, this.messageBox, this.controls, this.lastBox,
        h("h2", { class: "moves-title" }, t("chouette.players")), this.playersBox, this.formationBox,
        this.panel.el,
        h("h2", { class: "moves-title" }, t("chouette.results")), this.resultsBox,
        this.extras, this.seeds.el));
    fill(this.view, this.section);
  }

  // ----- data

  update(update) {
    if (update.kind === "team") {
      const m = update.message;
      if (m.name) this.names.set(m.from, m.name);
      this.panel.receive(m);
      if (m.from !== this.me()) playSound("move");
      return;
    }
    if (update.kind === "error") {
      const m = update.message;
      if (m.code !== "no_such_table") {
        this.toast(t("error.refused", { message: m.message || m.code }), "error");
        return;
      }
      this.destroyed = true;
      fill(this.view, h("section", { class: "page" }, h("h1", {}, t("chouette.not_found")), h("p", {}, m.message || ""),
        h("a", { href: "#/" }, t("nav.lobby"))));
      return;
    }
    const state = update.state;
    const before = this.state && this.state.game;
    this.state = state;
    this.skew = Date.parse(state.server_time) - Date.now();
    for (const p of state.players || []) this.names.set(p.user_id, p.name);
    const g = state.game;
    if (!g || g.phase !== "moving") this.swap = false;
    if (!before || !g || before.phase !== g.phase || before.turn !== g.turn || before.number !== g.number) this.selected = null;
    if (g && g.phase !== "team_doubled") this.takes.clear();
    if (update.kind === "events") {
      const kinds = update.events.map((e) => e.kind);
      if (kinds.includes("rolled") || kinds.includes("opening_rolled")) playSound("dice");
      if (kinds.includes("moved") && g) this.lastMoveGame = g.number;
    }
    this.noticeResults(update.kind === "events");
    this.render();
  }

  /** A game that just ended: say how it went for the viewer. */
  noticeResults(live) {
    const results = this.state.results || [];
    if (this.seenResults !== null && live && results.length > this.seenResults) {
      const last = results[results.length - 1];
      const mine = last.points.find(([uid]) => uid === this.me());
      const head = last.team_won ? t("chouette.team_won") : t("chouette.box_won");
      this.flash(mine ? t("chouette.game_over_you", { n: last.number, result: head, points: signed(mine[1]) })
        : t("chouette.game_over", { n: last.number, result: head }));
      playSound("end");
    }
    this.seenResults = results.length;
  }

  me() {
    const user = currentUser();
    return user ? user.id : null;
  }

  name(uid) {
    return this.names.get(uid) || `#${uid}`;
  }

  player() {
    const me = this.me();
    return (this.state && (this.state.players || []).find((p) => p.user_id === me)) || null;
  }

  /** "box" for the box, "team" for everyone else (members and spectators). */
  viewSide() {
    const g = this.state.game;
    return g && g.box === this.me() ? "box" : "team";
  }

  /** Who plays the board now: the box on its turn, the acting captain on the team's. */
  boardActor() {
    const g = this.state && this.state.game;
    if (!g || !g.turn) return null;
    return g.turn === "box" ? g.box : g.acting_captain;
  }

  awaitsMe() {
    const g = this.state && this.state.game;
    return !!(g && this.me() !== null && (g.awaiting || []).includes(this.me()));
  }

  myStake() {
    const g = this.state && this.state.game;
    return g ? (g.stakes || []).find((s) => s.member === this.me()) || null : null;
  }

  isTeamMember() {
    const p = this.player();
    return !!(p && (p.role === "captain" || p.role === "member"));
  }

  flash(text) {
    this.message = { text, until: Date.now() + MESSAGE_MS };
    this.renderMessage();
  }

  // ----- actions

  async act(type, fields = {}) {
    if (this.busy) return null;
    this.busy = true;
    try {
      return await this.socket.act(this.tableId, type, fields);
    } catch (error) {
      this.toast(t("error.refused", { message: error.message || String(error) }), "error");
      return null;
    } finally {
      this.busy = false;
    }
  }

  async say(fields) {
    try {
      return await this.socket.act(this.tableId, "team_say", fields);
    } catch (error) {
      this.toast(t("error.refused", { message: error.message || String(error) }), "error");
      return null;
    }
  }

  canMove() {
    const g = this.state && this.state.game;
    return !!(g && g.phase === "moving" && this.boardActor() === this.me() && this.me() !== null && g.legal && g.legal.steps);
  }

  roll() {
    const g = this.state && this.state.game;
    if (!g || this.boardActor() !== this.me() || g.phase !== "rolling") return;
    this.act("roll");
  }

  clickPoint(p) {
    if (!this.canMove() || this.busy) return;
    const choice = pickStep(this.state.game.legal.steps, this.selected, p, this.swap);
    if (choice.step) {
      this.selected = null;
      this.act("step", choice.step);
      return;
    }
    this.selected = choice.select;
    this.render();
  }

  undo() {
    this.selected = null;
    this.act("undo");
  }

  confirm() {
    this.selected = null;
    this.act("confirm");
  }

  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const inside = (selector) => !!(target && target.closest && target.closest(selector));
    if (inside("input, select, textarea") || !this.canMove()) return;
    const legal = this.state.game.legal;
    if (event.key === "Backspace" && legal.can_undo) {
      event.preventDefault();
      this.undo();
    } else if (event.key === "Enter" && legal.can_confirm && !inside("button, a, [data-point], [data-roll]")) {
      event.preventDefault();
      this.confirm();
    }
  }

  async join() {
    try {
      await ensureSignedIn(this.socket);
      await post(`/api/chouettes/${encodeURIComponent(this.tableId)}/join`, {});
      this.socket.subscribe(this.tableId);
    } catch (error) {
      this.toast(errorText(error), "error");
    }
  }

  answerTeamDouble() {
    const g = this.state.game;
    const takes = (g.stakes || []).filter((s) => s.result === null || s.result === undefined)
      .map((s) => s.member).filter((uid) => this.takes.get(uid) !== false);
    this.act("box_answer", { takes });
  }

  // ----- rendering

  render() {
    const s = this.state;
    if (this.destroyed) return;
    if (!s) {
      fill(this.messageBox, t("common.loading"));
      return;
    }
    const g = s.game;
    const p = this.player();
    Object.assign(this.section.dataset, {
      version: String(s.version),
      status: s.status,
      phase: g ? g.phase : "",
      game: g ? String(g.number) : "",
      role: p ? roleOf(p, g) : "spectator",
      side: this.viewSide(),
      myTurn: String(this.awaitsMe()),
      results: String((s.results || []).length),
    });
    this.renderInfo();
    this.renderSides();
    this.renderBoard();
    this.renderMessage();
    this.renderControls();
    this.renderLastMove();
    fill(this.playersBox, playersList(s, { me: this.me(), name: (uid) => this.name(uid) }));
    fill(this.formationBox, formationView(s, (uid) => this.name(uid)));
    fill(this.resultsBox, resultsTable(s, (uid) => this.name(uid)));
    this.panel.update({ member: this.isTeamMember(), pending: g && g.turn === "team" ? g.pending : [] });
    this.renderExtras();
    this.renderSeeds();
    this.renderClocks();
  }

  renderInfo() {
    const s = this.state;
    const parts = [h("span", { class: "variant" }, t("chouette.title")),
      h("span", { "data-variant": s.variant }, variantName(s.variant)),
      h("span", { "data-count": `${(s.players || []).length}/${s.max_players}` }, t("chouette.players_count", { n: (s.players || []).length, max: s.max_players }))];
    if (s.move_seconds) parts.push(h("span", {}, timeControlName(s.move_seconds)));
    if (s.options && s.options.jacoby) parts.push(h("span", { class: "badge" }, t("lobby.jacoby")));
    if (s.game) parts.push(h("span", { class: "badge" }, t("chouette.game_number", { n: (s.results || []).length + 1 })));
    if (!this.player()) parts.push(h("span", { class: "badge" }, t("game.watching")));
    fill(this.info, parts);
  }

  /** The bars above and below the board: the opposing side on top, the viewer's side below. */
  renderSides() {
    const s = this.state;
    const g = s.game;
    const mine = this.viewSide();
    const other = mine === "box" ? "team" : "box";
    for (const [el, side] of [[this.bottomPlayer, mine], [this.topPlayer, other]]) {
      el.dataset.side = side;
      if (!g) {
        fill(el, h("span", { class: "name" }, side === "box" ? t("chouette.side_box") : t("chouette.side_team")));
        el.classList.remove("to-move");
        continue;
      }
      const who = side === "box" ? g.box : g.acting_captain;
      const label = side === "box" ? t("chouette.side_box_named", { name: this.name(who) })
        : t("chouette.side_team_named", { name: this.name(who), n: (g.stakes || []).filter((x) => x.result === null || x.result === undefined).length });
      const awaited = (g.awaiting || []).some((uid) => (side === "box" ? uid === g.box : uid !== g.box));
      el.classList.toggle("to-move", awaited);
      fill(el,
        h("span", { class: `chip ${COLOURS[side]}`, "aria-hidden": "true" }),
        h("span", { class: "name" }, label),
        g.pips ? h("span", { class: "pip-count", title: t("board.pips") }, `${t("board.pips")} ${g.pips[side]}`) : null,
        h("span", { class: "clock", "data-clock-side": side }));
    }
  }

  renderBoard() {
    const s = this.state;
    const g = s.game;
    const settings = getSettings();
    if (!g || !g.boards) {
      this.board.render({ orientation: settings.home, points: new Array(24).fill(0), bar: [0, 0], off: [0, 0] });
      return;
    }
    const mine = this.viewSide();
    const other = mine === "box" ? "team" : "box";
    const board = g.boards[mine];
    const steps = this.canMove() ? g.legal.steps : [];
    const { movable, selected, targets } = highlights(steps, this.selected);
    this.selected = selected;
    const ours = g.turn === mine;
    const convert = (steps_, sameSide, pending) => steps_.map((x) => ({
      from: sameSide ? x.source : fromOpponent(s.variant, x.source),
      to: sameSide ? x.target : fromOpponent(s.variant, x.target),
      mine: sameSide,
      pending,
    }));
    const last = s.last_move;
    let arrows = [];
    if (g.pending && g.pending.length) arrows = convert(g.pending, ours, true);
    else if (last && this.lastMoveGame === g.number) arrows = convert(last.steps, (last.player === g.box ? "box" : "team") === mine, false);
    this.board.render({
      orientation: settings.home,
      points: board.points,
      bar: board.bar,
      off: board.off,
      colours: { me: COLOURS[mine], opp: COLOURS[other] },
      dice: g.dice && g.phase !== "finished" ? { ...diceFaces(g.dice, g.pending, this.swap), mine: ours } : null,
      rollable: this.boardActor() === this.me() && g.phase === "rolling",
      cube: this.boardCube(mine),
      pips: g.pips ? [g.pips[mine], g.pips[other]] : null,
      movable,
      selected: this.selected,
      targets,
      arrows,
    });
  }

  renderLastMove() {
    const s = this.state;
    const g = s.game;
    const last = s.last_move;
    const shown = !!(g && last && this.lastMoveGame === g.number);
    this.lastBox.hidden = !shown;
    fill(this.lastBox, shown ? t("chouette.last_move", { name: this.name(last.player), dice: formatDice(last.dice), move: formatSteps(last.steps) }) : "");
  }

  /** One cube on the board: the viewer's own, else the acting captain's. */
  boardCube(mine) {
    const g = this.state.game;
    if (this.state.options && this.state.options.cube === false) return null;
    const stakes = g.stakes || [];
    const stake = stakes.find((x) => x.member === this.me()) || stakes.find((x) => x.member === g.acting_captain) || stakes[0];
    if (!stake) return null;
    const owner = stake.owner === "box" ? "box" : stake.owner === "member" ? "team" : null;
    return {
      value: stake.value,
      owner: owner === null ? null : owner === mine ? "me" : "opp",
      offered: g.phase === "team_doubled" || g.phase === "box_doubled",
    };
  }

  statusText() {
    const s = this.state;
    const g = s.game;
    const me = this.me();
    const seated = (s.players || []).length;
    if (s.status === "waiting") {
      return seated >= MIN_PLAYERS ? t("chouette.status_ready", { n: seated }) : t("chouette.status_waiting", { n: seated, min: MIN_PLAYERS });
    }
    if (s.status === "forming") return t("chouette.status_forming");
    if (s.status === "paused" || !g) return t("chouette.status_paused");
    const actor = this.boardActor();
    const actorName = actor === null ? "" : `${this.name(actor)} (${roleName(actor === g.box ? "box" : actor === g.captain ? "captain" : "acting")})`;
    const awaitedNames = (g.awaiting || []).map((uid) => this.name(uid)).join(", ");
    const awaitsMe = this.awaitsMe();
    switch (g.phase) {
      case "opening":
        return t("game.opening");
      case "rolling":
        if (actor === me) return g.legal && g.legal.can_double ? t("game.your_turn_roll_or_double") : t("game.your_turn_roll");
        return t("game.other_to_play", { name: actorName });
      case "moving":
        if (actor === me) {
          if (g.legal && g.legal.can_confirm) return t("game.confirm_or_undo");
          if (this.selected !== null) return t("game.pick_target");
          return g.pending && g.pending.length ? t("game.play_rest") : t("game.your_move", { dice: formatDice(g.dice) });
        }
        return t("game.other_moving", { name: actorName, dice: formatDice(g.dice) });
      case "team_vote":
        return awaitsMe ? t("chouette.vote_prompt", { name: this.name(g.acting_captain) }) : t("chouette.waiting_votes", { names: awaitedNames });
      case "team_doubled":
        return awaitsMe ? t("chouette.answer_team_double") : t("chouette.waiting_box_answer", { name: this.name(g.box) });
      case "box_doubled": {
        const stake = this.myStake();
        if (awaitsMe && stake) return t("chouette.box_doubled_prompt", { next: stake.value * 2, now: stake.value });
        return t("chouette.waiting_answers", { names: awaitedNames });
      }
      case "finished":
        return t("chouette.game_finished");
      default:
        return "";
    }
  }

  renderMessage() {
    if (!this.state) return;
    const transient = this.message && Date.now() <= this.message.until ? this.message : null;
    this.messageBox.className = `message${transient ? " flash" : ""}`;
    this.messageBox.dataset.kind = transient ? "flash" : "status";
    fill(this.messageBox, transient ? transient.text : this.statusText(), h("span", { class: "deadline", "data-deadline": "" }));
  }

  button(label, onclick, props = {}) {
    return h("button", { type: "button", onclick, ...props }, label);
  }

  renderControls() {
    const s = this.state;
    const g = s.game;
    const me = this.me();
    const p = this.player();
    const out = [];
    if (s.status === "waiting") {
      if (p && (s.players || []).length >= MIN_PLAYERS) {
        out.push(this.button(t("chouette.start"), () => this.act("start"), { class: "primary", "data-action": "start" }));
        out.push(h("p", { class: "hint" }, t("chouette.start_hint")));
      }
    } else if (s.status === "playing" && g && me !== null) {
      const actor = this.boardActor() === me;
      const legal = g.legal || {};
      if (actor && g.phase === "rolling") {
        out.push(this.button([icon("dice"), t("game.roll")], () => this.roll(), { class: "primary", "data-action": "roll" }));
        if (legal.can_double) {
          const box = g.box === me;
          out.push(h("div", { class: "cube-offer" },
            this.button(box ? t("chouette.box_double") : t("chouette.propose_double"), () => this.act("double"), { "data-action": "double" }),
            h("small", { class: "hint" }, box ? t("chouette.box_double_hint") : t("chouette.propose_double_hint"))));
        }
      } else if (actor && g.phase === "moving") {
        const twoDice = g.dice && g.dice[0] !== g.dice[1] && !(g.pending && g.pending.length);
        out.push(this.button([icon("undo"), t("game.undo")], () => this.undo(), { disabled: !legal.can_undo, "data-action": "undo", "aria-keyshortcuts": "Backspace" }));
        out.push(this.button([icon("confirm"), t("game.confirm")], () => this.confirm(), { class: legal.can_confirm ? "primary" : "", disabled: !legal.can_confirm, "data-action": "confirm", "aria-keyshortcuts": "Enter" }));
        if (twoDice) {
          out.push(this.button([icon("swap"), t("game.swap_dice")], () => { this.swap = !this.swap; this.render(); },
            { "data-action": "swap", title: t("game.swap_dice_hint"), "aria-pressed": this.swap ? "true" : "false" }));
        }
      } else if (g.phase === "team_vote" && this.awaitsMe()) {
        out.push(this.button(t("chouette.agree"), () => this.act("vote", { agree: true }), { class: "primary", "data-action": "agree" }));
        out.push(this.button(t("chouette.refuse"), () => this.act("vote", { agree: false }), { "data-action": "refuse" }));
      } else if (g.phase === "box_doubled" && this.awaitsMe()) {
        const stake = this.myStake();
        if (stake) out.push(h("p", { class: "hint" }, t("chouette.take_explain", { next: stake.value * 2, now: stake.value })));
        out.push(this.button(t("game.take"), () => this.act("take"), { class: "primary", "data-action": "take" }));
        out.push(this.button(t("game.drop"), () => this.act("drop"), { "data-action": "drop" }));
      } else if (g.phase === "team_doubled" && this.awaitsMe() && g.box === me) {
        out.push(this.teamDoubleChooser());
      }
    }
    fill(this.controls, out);
  }

  /** The box's answer to a team double: take or pass each member's cube, then confirm. */
  teamDoubleChooser() {
    const g = this.state.game;
    const inPlay = (g.stakes || []).filter((x) => x.result === null || x.result === undefined);
    return h("div", { class: "box-answer", role: "group", "aria-label": t("chouette.answer_team_double"), "data-box-answer": "" },
      inPlay.map((stake) => {
        const take = this.takes.get(stake.member) !== false;
        const choose = (value) => { this.takes.set(stake.member, value); };
        const radio = (value, label) => h("label", { class: "toggle-inline" },
          h("input", { type: "radio", name: `answer-${stake.member}`, value: value ? "take" : "pass", checked: take === value, "data-member": String(stake.member), onchange: () => choose(value) }),
          label);
        return h("div", { class: "member-answer", "data-member": String(stake.member) },
          h("span", { class: "name" }, this.name(stake.member)),
          radio(true, t("chouette.take_cube", { value: stake.value * 2 })),
          radio(false, t("chouette.pass_cube", { value: stake.value })));
      }),
      this.button(t("chouette.answer"), () => this.answerTeamDouble(), { class: "primary", "data-action": "box-answer" }));
  }

  renderExtras() {
    const s = this.state;
    const g = s.game;
    const p = this.player();
    const me = this.me();
    const out = [];
    if (!p && s.status !== "forming" && (s.players || []).length < s.max_players) {
      out.push(this.button(t("chouette.join"), () => this.join(), { class: "primary", "data-action": "join" }));
    }
    const invite = sessionStorage.getItem(`nardy.invite.${this.tableId}`);
    if (p && invite && s.status !== "closed") {
      const link = `${location.origin}${location.pathname}#/invite/${invite}`;
      out.push(h("div", { class: "invite" },
        h("label", {}, t("game.invite_link"), h("input", { type: "text", readonly: true, value: link, "data-invite": link, onfocus: (e) => e.target.select() })),
        this.button(t("game.copy"), () => navigator.clipboard && navigator.clipboard.writeText(link).then(() => this.toast(t("game.copied"))))));
    }
    if (p && g && s.status === "playing" && g.phase !== "finished") {
      const stake = this.myStake();
      const box = g.box === me;
      const inPlay = stake && (stake.result === null || stake.result === undefined);
      if (box || (inPlay && g.phase !== "box_doubled")) {
        out.push(this.button([icon("flag"), t("game.resign")], () => {
          if (confirm(box ? t("chouette.resign_confirm_box") : t("chouette.resign_confirm_member"))) this.act("resign");
        }, { "data-action": "resign" }));
      }
    }
    if (p) {
      if (p.leaving) out.push(h("p", { class: "hint", "data-leaving": "" }, t("chouette.leaving_after_game")));
      else {
        out.push(this.button(t("chouette.leave"), () => {
          if (!g || confirm(t("chouette.leave_confirm"))) this.act("leave");
        }, { "data-action": "leave", class: "subtle" }));
      }
    }
    fill(this.extras, out);
  }

  /** Provably fair dice (fair_dice.js): this formation's or game's seed hash and client seeds, the next hash, one's own seed. */
  renderSeeds() {
    const s = this.state;
    const p = this.player();
    const next = s.next_commitment;
    this.seeds.update({
      shown: !!p && s.status !== "closed",
      current: { commitment: s.commitment, clientSeeds: s.client_seeds },
      next: next && { label: t("chouette.next_commitment", { n: next.number }), commitment: next.commitment },
      mine: p ? p.client_seed : null,
    });
  }

  renderClocks() {
    const s = this.state;
    if (!s) return;
    const g = s.game;
    const awaiting = new Set((g && g.awaiting) || []);
    const left = s.deadline ? Date.parse(s.deadline) - (Date.now() + this.skew) : null;
    const show = (el, on) => {
      if (on && left !== null) {
        el.textContent = formatRemaining(left);
        el.classList.toggle("low", left < 10000);
        el.hidden = false;
      } else {
        el.textContent = "";
        el.hidden = true;
      }
    };
    for (const el of this.view.querySelectorAll("[data-clock-user]")) show(el, awaiting.has(Number(el.dataset.clockUser)));
    for (const el of this.view.querySelectorAll("[data-clock-side]")) {
      const side = el.dataset.clockSide;
      show(el, !!g && [...awaiting].some((uid) => (side === "box" ? uid === g.box : uid !== g.box)));
    }
    for (const el of this.view.querySelectorAll("[data-deadline]")) show(el, awaiting.has(this.me()));
    if (this.message && Date.now() > this.message.until) {
      this.message = null;
      this.renderMessage();
    }
  }
}
