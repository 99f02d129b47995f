// The SVG board: 24 points, checkers with stack counts (a pinned checker under the stack that pins it), bar,
// bear-off tray, dice, cube, pip counts, the last move drawn as arrows, click-to-highlight, drag-and-drop (mouse
// and touch, through pointer events), keyboard play, and checkers flying along the moves just made.
//
// The board draws what it is given from one player's side ("me": positive counts,
// my points 1..24 laid out as a U with my home in the chosen corner) and reports
// clicks and drops; which moves are legal is the server's business, passed in as
// `movable` and `targets`.
import { esc } from "./dom.js";
import { t } from "./i18n.js";

// ----- geometry (viewBox units)
const H = 688;
const PW = 60; // point width
const R = 27; // checker radius
const MID = H / 2;
const PH = 5 * 2 * R + 6; // point height
/**
 * Where the frame, the trays, the fields and the bar lie across the board. WIDE is the board of a wide screen;
 * COMPACT, for a phone held upright, thins the frame, the trays and the bar, so that its 12 points across
 * take a larger share of a narrow screen, and leaves a taller frame above and below for readable point numbers.
 */
const WIDE = {
  W: 1000, TOP: 24, BOTTOM: H - 24, SIDE_A: 24, SIDE_B: 912, SIDE_W: 64,
  FIELD_L: 112, FIELD_R: 528, BAR_X: 472, BAR_W: 56, CUBE: 46, NUMBER_TOP: 17, NUMBER_BOTTOM: H - 7,
};
const COMPACT = {
  W: 872, TOP: 34, BOTTOM: H - 34, SIDE_A: 8, SIDE_B: 820, SIDE_W: 44,
  FIELD_L: 56, FIELD_R: 456, BAR_X: 416, BAR_W: 40, CUBE: 40, NUMBER_TOP: 27, NUMBER_BOTTOM: H - 9,
};
/** The screens that get the COMPACT board (the same as the game page's upright-phone layout in app.css). */
const COMPACT_SCREEN = "(orientation: portrait) and (max-width: 600px)";
const MAX_STACK = 5;
const DIRS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const DRAG_START_PX = 6; // how far a press moves before it is a drag, not a click
export const FLIGHT_MS = 260; // one checker's flight along one step

/** Whether the person asked for no animation (the checkers then jump to their points). */
const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

let boardCount = 0;

/** Which column (0..11, left to right) and row my point p takes with my home in `corner`. */
export function pointPlace(p, corner = "bottom-right") {
  let col = p <= 12 ? 12 - p : p - 13;
  let bottom = p <= 12;
  if (corner.endsWith("left")) col = 11 - col;
  if (corner.startsWith("top")) bottom = !bottom;
  return { col, bottom };
}

const colX = (g, col) => (col < 6 ? g.FIELD_L + col * PW : g.FIELD_R + (col - 6) * PW);

function slotY(g, bottom, index) {
  const i = Math.min(index, MAX_STACK - 1);
  return bottom ? g.BOTTOM - R - 2 * R * i : g.TOP + R + 2 * R * i;
}

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

export class Board {
  /**
   * host: the element to draw in. handlers: onPoint(p) for clicks on a point
   * (25 = my bar, 0 = my bear-off tray), onRoll() for a click on the dice to roll,
   * and for drag-and-drop onDragStart(p) when a movable checker on p is picked up and
   * onDrop(p, target) when it is let go over point `target` (null: off the board).
   */
  constructor(host, handlers = {}) {
    this.host = host;
    this.handlers = handlers;
    this.id = `b${++boardCount}`;
    this.view = null;
    this.drag = null;
    this.afterDrag = false;
    host.classList.add("board-host");
    host.addEventListener("click", (event) => this.click(event));
    host.addEventListener("keydown", (event) => this.key(event));
    host.addEventListener("pointerdown", (event) => this.pointerDown(event));
    host.addEventListener("pointermove", (event) => this.pointerMove(event));
    host.addEventListener("pointerup", (event) => this.pointerUp(event));
    host.addEventListener("pointercancel", (event) => this.pointerCancel(event));
    this.followScreen();
  }

  click(event) {
    if (this.afterDrag) return;
    const roll = event.target.closest("[data-roll]");
    if (roll && this.handlers.onRoll) {
      this.handlers.onRoll();
      return;
    }
    const hit = event.target.closest("[data-point]");
    if (hit && this.handlers.onPoint) this.handlers.onPoint(Number(hit.dataset.point));
  }

  key(event) {
    const focused = event.target.closest ? event.target.closest("[data-point],[data-roll]") : null;
    if (!focused) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (focused.dataset.roll !== undefined) this.handlers.onRoll && this.handlers.onRoll();
      else this.handlers.onPoint && this.handlers.onPoint(Number(focused.dataset.point));
      return;
    }
    const dir = DIRS[event.key];
    if (!dir) return;
    event.preventDefault();
    const here = centre(focused);
    let best = null;
    let bestScore = Infinity;
    for (const el of this.host.querySelectorAll("[data-point],[data-roll]")) {
      if (el === focused) continue;
      const c = centre(el);
      const along = (c.x - here.x) * dir[0] + (c.y - here.y) * dir[1];
      if (along <= 4) continue;
      const across = Math.abs((c.x - here.x) * dir[1]) + Math.abs((c.y - here.y) * dir[0]);
      const score = along + 3 * across;
      if (score < bestScore) { bestScore = score; best = el; }
    }
    if (best) best.focus();
  }

  // ----- drag-and-drop: a press on a movable checker that moves becomes a drag

  pointerDown(event) {
    if (!event.isPrimary || event.button !== 0 || !this.handlers.onDrop) return;
    const hit = event.target.closest("[data-point]");
    const p = hit ? Number(hit.dataset.point) : null;
    if (p === null || !this.view || !this.view.movable || !this.view.movable.has(p)) return;
    this.drag = { source: p, pointerId: event.pointerId, x0: event.clientX, y0: event.clientY, moved: false, at: null };
  }

  pointerMove(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.moved) {
      if (Math.hypot(event.clientX - drag.x0, event.clientY - drag.y0) < DRAG_START_PX) return;
      drag.moved = true;
      this.host.setPointerCapture(event.pointerId);
      this.host.classList.add("dragging");
      if (this.handlers.onDragStart) this.handlers.onDragStart(drag.source);
    }
    event.preventDefault();
    drag.at = this.toBoard(event.clientX, event.clientY);
    this.placeGhost();
  }

  pointerUp(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    this.drag = null;
    if (!drag.moved) return; // a click: the click handler plays it
    // the click that follows this release (same task) must not count as a click on a point
    this.afterDrag = true;
    setTimeout(() => { this.afterDrag = false; }, 0);
    this.host.classList.remove("dragging");
    this.removeGhost();
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const hit = under && under.closest ? under.closest("[data-point]") : null;
    const target = hit && this.host.contains(hit) ? Number(hit.dataset.point) : null;
    this.handlers.onDrop(drag.source, target);
  }

  pointerCancel(event) {
    const drag = this.drag;
    if (!drag || event.pointerId !== drag.pointerId) return;
    this.drag = null;
    this.host.classList.remove("dragging");
    this.removeGhost();
    if (drag.moved) this.handlers.onDrop(drag.source, null);
  }

  /** Client coordinates in the board's own units. */
  toBoard(x, y) {
    const svg = this.host.querySelector("svg.board");
    const matrix = svg && svg.getScreenCTM();
    if (!matrix) return { x: 0, y: 0 };
    const point = new DOMPoint(x, y).matrixTransform(matrix.inverse());
    return { x: point.x, y: point.y };
  }

  /** The dragged checker under the pointer (drawn again after every render while the drag lasts). */
  placeGhost() {
    const drag = this.drag;
    const svg = this.host.querySelector("svg.board");
    if (!svg || !drag || !drag.moved || !drag.at) return;
    let ghost = svg.querySelector(".checker.ghost");
    if (!ghost) {
      const colours = (this.view && this.view.colours) || { me: "white" };
      svg.insertAdjacentHTML("beforeend", this.checker(0, 0, colours.me, " ghost"));
      ghost = svg.lastElementChild;
    }
    ghost.setAttribute("transform", `translate(${drag.at.x} ${drag.at.y})`);
  }

  removeGhost() {
    const ghost = this.host.querySelector(".checker.ghost");
    if (ghost) ghost.remove();
  }

  /** The board's geometry for the screen it is drawn on now: COMPACT on a phone held upright. */
  geometry() {
    return matchMedia(COMPACT_SCREEN).matches ? COMPACT : WIDE;
  }

  /** Draw the last view again when the screen turns between upright and sideways (the geometry changes). */
  followScreen() {
    const screen = matchMedia(COMPACT_SCREEN);
    const redraw = () => {
      if (!this.host.isConnected) screen.removeEventListener("change", redraw);
      else if (this.view) this.render({ ...this.view, flights: [] });
    };
    screen.addEventListener("change", redraw);
  }

  /** Draw `view` (see the fields read below). Keeps keyboard focus on the same point. */
  render(view) {
    this.view = view;
    const active = document.activeElement;
    const focusKey = active && this.host.contains(active)
      ? (active.dataset.point !== undefined ? `[data-point="${active.dataset.point}"]` : active.dataset.roll !== undefined ? "[data-roll]" : null)
      : null;
    this.host.innerHTML = this.svg(view);
    if (focusKey) {
      const again = this.host.querySelector(focusKey);
      if (again) again.focus();
    }
    this.placeGhost();
    if (view.flights && view.flights.length) this.fly(view.flights);
  }

  /**
   * Checkers flying along `flights` ({from, to, mine}, in the order played) onto the board just
   * drawn: each landing checker stays hidden until its flight ends. None with reduced motion.
   */
  fly(flights) {
    if (reducedMotion()) return;
    const { SIDE_A, SIDE_B } = this.geometry();
    const svg = this.host.querySelector("svg.board");
    const v = this.view;
    const corner = v.orientation || "bottom-right";
    const myBottom = corner.startsWith("bottom");
    const trayX = corner.endsWith("right") ? SIDE_B : SIDE_A;
    const stacks = (v.points || new Array(24).fill(0)).slice();
    const colours = v.colours || { me: "white", opp: "black" };
    const onPoint = (p) => p >= 1 && p <= 24;
    // how many checkers end on each point (a checker played on from a point did not stay there)
    const staying = new Map();
    const lastLanding = new Map();
    flights.forEach((f, i) => {
      if (onPoint(f.from) && staying.get(f.from)) staying.set(f.from, staying.get(f.from) - 1);
      if (onPoint(f.to)) {
        staying.set(f.to, (staying.get(f.to) || 0) + 1);
        lastLanding.set(f.to, i);
      }
    });
    const hidden = new Map();
    for (const [p, count] of staying) {
      const stack = [...svg.querySelectorAll(`.checker[data-at="${p}"]`)];
      const landed = stack.slice(Math.max(0, stack.length - count));
      for (const el of landed) el.classList.add("arriving");
      hidden.set(p, landed);
    }
    flights.forEach((f, i) => {
      const from = this.anchor(f.from, f.mine, corner, myBottom, trayX, stacks, true);
      const to = this.anchor(f.to, f.mine, corner, myBottom, trayX, stacks, false);
      setTimeout(() => {
        if (!svg.isConnected) return;
        svg.insertAdjacentHTML("beforeend", this.checker(to.x, to.y, f.mine ? colours.me : colours.opp, " flying"));
        const ghost = svg.lastElementChild;
        const flight = ghost.animate(
          [{ transform: `translate(${from.x - to.x}px, ${from.y - to.y}px)` }, { transform: "translate(0px, 0px)" }],
          { duration: FLIGHT_MS, easing: "ease-in-out" });
        flight.onfinish = () => {
          ghost.remove();
          if (lastLanding.get(f.to) === i) for (const el of hidden.get(f.to) || []) el.classList.remove("arriving");
        };
      }, i * FLIGHT_MS);
    });
  }

  svg(v) {
    const g = this.geometry();
    const { W, TOP, BOTTOM, SIDE_A, SIDE_B, SIDE_W, FIELD_L, FIELD_R, BAR_X, BAR_W } = g;
    const corner = v.orientation || "bottom-right";
    const homeRight = corner.endsWith("right");
    const myBottom = corner.startsWith("bottom");
    const trayX = homeRight ? SIDE_B : SIDE_A;
    const cubeX = homeRight ? SIDE_A : SIDE_B;
    const id = this.id;
    const out = [];
    const points = v.points || new Array(24).fill(0);
    // a variant with pins sends them with every position (`pinned`: +1 mine under theirs, -1 theirs under mine)
    const pinning = Array.isArray(v.pinned);
    const pinned = v.pinned || [];
    const movable = v.movable || new Set();
    const targets = v.targets || new Set();
    const colours = v.colours || { me: "white", opp: "black" };
    const colourOf = (mine) => (mine ? colours.me : colours.opp);
    const lift = this.drag && this.drag.moved ? this.drag.source : null;

    out.push(`<svg class="board${g === COMPACT ? " compact" : ""}${movable.size ? " can-drag" : ""}" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" role="group" aria-label="${esc(t("board.label"))}" data-home="${corner}" data-dice="${esc((v.dice && v.dice.values || []).join("-"))}" data-mover="${v.dice ? (v.dice.mine ? "me" : "opp") : ""}">`);
    out.push(this.defs());

    // frame and playing field
    out.push(`<rect x="0" y="0" width="${W}" height="${H}" rx="18" fill="url(#${id}-wood)"/>`);
    out.push(`<rect x="0" y="0" width="${W}" height="${H}" rx="18" fill="url(#${id}-grain)" opacity="0.35"/>`);
    for (const x of [FIELD_L, FIELD_R]) {
      out.push(`<rect x="${x}" y="${TOP}" width="${6 * PW}" height="${BOTTOM - TOP}" fill="url(#${id}-felt)" class="field"/>`);
    }
    for (const x of [SIDE_A, SIDE_B]) {
      out.push(`<rect x="${x}" y="${TOP}" width="${SIDE_W}" height="${BOTTOM - TOP}" rx="6" fill="#3a210f" stroke="#2a1608" stroke-width="2"/>`);
    }
    out.push(`<rect x="${BAR_X}" y="${TOP - 6}" width="${BAR_W}" height="${BOTTOM - TOP + 12}" fill="url(#${id}-wood)" stroke="#3a210f" stroke-width="2"/>`);
    out.push(`<line x1="${BAR_X + BAR_W / 2}" y1="${TOP + 8}" x2="${BAR_X + BAR_W / 2}" y2="${BOTTOM - 8}" stroke="#3a210f" stroke-width="1.5" opacity="0.6"/>`);
    // a divider line across the tray: the two trays (mine and the opponent's)
    out.push(`<line x1="${trayX + 8}" y1="${MID}" x2="${trayX + SIDE_W - 8}" y2="${MID}" stroke="#5b3a1e" stroke-width="2"/>`);

    // points (triangles) and their numbers on the frame
    for (let p = 1; p <= 24; p++) {
      const { col, bottom } = pointPlace(p, corner);
      const x = colX(g, col);
      const base = bottom ? BOTTOM : TOP;
      const tip = bottom ? BOTTOM - PH : TOP + PH;
      const dark = (col + (bottom ? 1 : 0)) % 2 === 0;
      out.push(`<polygon class="tri ${dark ? "dark" : "light"}" points="${x + 1},${base} ${x + PW - 1},${base} ${x + PW / 2},${tip}" fill="url(#${id}-${dark ? "tri-dark" : "tri-light"})"/>`);
      const ny = bottom ? g.NUMBER_BOTTOM : g.NUMBER_TOP;
      out.push(`<text class="pnum" x="${x + PW / 2}" y="${ny}" text-anchor="middle">${p}</text>`);
    }

    // target highlights under the checkers
    for (const p of targets) {
      if (p >= 1 && p <= 24) {
        const { col, bottom } = pointPlace(p, corner);
        const x = colX(g, col);
        const base = bottom ? BOTTOM : TOP;
        const tip = bottom ? BOTTOM - PH : TOP + PH;
        out.push(`<polygon class="target-glow" points="${x + 1},${base} ${x + PW - 1},${base} ${x + PW / 2},${tip}"/>`);
      }
    }

    // checkers on points: a pinned checker at the foot of the point, under the stack that pins it
    for (let p = 1; p <= 24; p++) {
      const count = points[p - 1];
      const pin = pinned[p - 1] || 0;
      if (!count && !pin) continue;
      const mine = count > 0;
      const n = Math.abs(count);
      const { col, bottom } = pointPlace(p, corner);
      const cx = colX(g, col) + PW / 2;
      if (pin) out.push(this.pinnedChecker(cx, slotY(g, bottom, 0), colourOf(pin > 0), pin > 0));
      const under = pin ? 1 : 0;
      const shown = Math.min(n, MAX_STACK - under);
      for (let i = 0; i < shown; i++) {
        const top = i === shown - 1;
        const lifted = top && mine && lift === p ? " lifted" : "";
        const cls = top && mine && v.selected === p ? " selected" : top && mine && movable.has(p) ? " movable" : "";
        out.push(this.checker(cx, slotY(g, bottom, under + i), colourOf(mine), cls + lifted, p));
      }
      if (n > shown) out.push(this.countLabel(cx, slotY(g, bottom, under + shown - 1), n, colourOf(mine)));
    }

    // landing markers on targets: on top of the stack; a lone opposing checker is hit (its slot is taken) where
    // there is no pinning, and pinned (the checker lands on it) where there is
    for (const p of targets) {
      if (p >= 1 && p <= 24) {
        const { col, bottom } = pointPlace(p, corner);
        const count = points[p - 1];
        const under = pinned[p - 1] ? 1 : 0;
        const slot = count > 0 ? count + under : pinning && count < 0 ? 1 : 0;
        out.push(`<circle class="landing" cx="${colX(g, col) + PW / 2}" cy="${slotY(g, bottom, slot)}" r="${R - 4}"/>`);
      }
    }

    // the bar: my checkers on my half, the opponent's on theirs
    const bar = v.bar || [0, 0];
    for (const [index, mine] of [[0, true], [1, false]]) {
      const n = bar[index];
      if (!n) continue;
      const down = mine === myBottom;
      for (let i = 0; i < Math.min(n, 4); i++) {
        const y = down ? MID + 56 + i * 2 * R : MID - 56 - i * 2 * R;
        const top = i === Math.min(n, 4) - 1;
        const lifted = top && mine && lift === 25 ? " lifted" : "";
        const cls = top && mine && v.selected === 25 ? " selected" : top && mine && movable.has(25) ? " movable" : "";
        out.push(this.checker(BAR_X + BAR_W / 2, y, colourOf(mine), cls + lifted));
      }
      if (n > 1) {
        const y = down ? MID + 56 + (Math.min(n, 4) - 1) * 2 * R : MID - 56 - (Math.min(n, 4) - 1) * 2 * R;
        out.push(this.countLabel(BAR_X + BAR_W / 2, y, n, colourOf(mine)));
      }
    }

    // the bear-off tray: slabs seen from the side
    const off = v.off || [0, 0];
    for (const [index, mine] of [[0, true], [1, false]]) {
      const n = off[index];
      const down = mine === myBottom;
      for (let i = 0; i < n; i++) {
        const y = down ? BOTTOM - 6 - (i + 1) * 14 : TOP + 6 + i * 14;
        out.push(`<rect class="slab ${colourOf(mine)}" x="${trayX + 7}" y="${y}" width="${SIDE_W - 14}" height="12" rx="4"/>`);
      }
      if (n) {
        const y = down ? BOTTOM - 6 - n * 14 - 10 : TOP + 6 + n * 14 + 22;
        out.push(`<text class="tray-count" x="${trayX + SIDE_W / 2}" y="${y}" text-anchor="middle">${n}</text>`);
      }
    }
    if (targets.has(0)) {
      const y = myBottom ? MID : TOP;
      out.push(`<rect class="target-glow tray-glow" x="${trayX + 3}" y="${y + 3}" width="${SIDE_W - 6}" height="${MID - TOP - 6}" rx="6"/>`);
    }

    // pip counts and the cube on the side column opposite the tray
    if (v.pips) {
      const meY = myBottom ? MID + 120 : MID - 120;
      const oppY = myBottom ? MID - 120 : MID + 120;
      out.push(`<text class="pips-label" x="${cubeX + SIDE_W / 2}" y="${meY - 14}" text-anchor="middle">${esc(t("board.pips"))}</text>`);
      out.push(`<text class="pips" data-pips="me" x="${cubeX + SIDE_W / 2}" y="${meY + 10}" text-anchor="middle">${v.pips[0]}</text>`);
      out.push(`<text class="pips-label" x="${cubeX + SIDE_W / 2}" y="${oppY - 14}" text-anchor="middle">${esc(t("board.pips"))}</text>`);
      out.push(`<text class="pips" data-pips="opp" x="${cubeX + SIDE_W / 2}" y="${oppY + 10}" text-anchor="middle">${v.pips[1]}</text>`);
    }
    if (v.cube) {
      const owner = v.cube.owner;
      const y = owner === "me" ? (myBottom ? BOTTOM - 70 : TOP + 70) : owner === "opp" ? (myBottom ? TOP + 70 : BOTTOM - 70) : MID;
      out.push(this.cube(cubeX + SIDE_W / 2, y, v.cube.value, owner, v.cube.offered));
    }

    // dice: the current roll big on the mover's half, the opponent's last roll small on theirs
    const homeHalf = homeRight ? FIELD_R + 3 * PW : FIELD_L + 3 * PW;
    const otherHalf = homeRight ? FIELD_L + 3 * PW : FIELD_R + 3 * PW;
    if (v.dice && v.dice.values) {
      out.push(this.diceGroup(v.dice.mine ? homeHalf : otherHalf, MID, v.dice.values, v.dice.used || [], v.dice.mine ? colours.me : colours.opp, 50, "dice-current"));
    }
    if (v.opening) {
      // the opening roll: each player's one die on their own half
      out.push(this.diceGroup(homeHalf, MID, [v.opening[0]], [], colours.me, 50, "dice-opening"));
      out.push(this.diceGroup(otherHalf, MID, [v.opening[1]], [], colours.opp, 50, "dice-opening"));
    }
    if (v.oppLastDice && !(v.dice && !v.dice.mine)) {
      out.push(this.diceGroup(otherHalf, MID, v.oppLastDice, [], colours.opp, 30, "dice-last", t("board.opponent_last_roll")));
    }

    // arrows: the last move, or the steps played so far this turn
    if (v.arrows && v.arrows.length) {
      const stacks = points.slice();
      for (const arrow of v.arrows) out.push(this.arrow(arrow, corner, myBottom, trayX, stacks));
    }

    // focusable hit areas on top: points, bar, tray
    for (let p = 1; p <= 24; p++) {
      const { col, bottom } = pointPlace(p, corner);
      const x = colX(g, col);
      const y = bottom ? MID + 6 : TOP;
      const count = points[p - 1];
      const owner = count > 0 ? "me" : count < 0 ? "opp" : "";
      const state = [movable.has(p) ? "movable" : "", v.selected === p ? "selected" : "", targets.has(p) ? "target" : ""].filter(Boolean).join(" ");
      const pin = pinned[p - 1] || 0;
      const pinAttr = pin ? ` data-pinned="${pin > 0 ? "me" : "opp"}"` : "";
      out.push(`<g class="hit ${state}" data-point="${p}" data-count="${Math.abs(count)}" data-owner="${owner}"${pinAttr} tabindex="0" role="button" aria-label="${esc(this.pointLabel(p, count, pin, colours, movable.has(p), targets.has(p), v.selected === p))}">`
        + `<rect x="${x}" y="${y}" width="${PW}" height="${MID - TOP - 6}" fill="transparent"/>`
        + `<rect class="focus-ring" x="${x + 2}" y="${y + 2}" width="${PW - 4}" height="${MID - TOP - 10}" rx="6"/></g>`);
    }
    const barState = [movable.has(25) ? "movable" : "", v.selected === 25 ? "selected" : ""].filter(Boolean).join(" ");
    out.push(`<g class="hit bar ${barState}" data-point="25" data-count="${bar[0]}" tabindex="0" role="button" aria-label="${esc(t("board.bar_label", { mine: bar[0], theirs: bar[1] }))}">`
      + `<rect x="${BAR_X}" y="${TOP}" width="${BAR_W}" height="${BOTTOM - TOP}" fill="transparent"/>`
      + `<rect class="focus-ring" x="${BAR_X + 3}" y="${TOP + 3}" width="${BAR_W - 6}" height="${BOTTOM - TOP - 6}" rx="6"/></g>`);
    out.push(`<g class="hit tray ${targets.has(0) ? "target" : ""}" data-point="0" data-count="${off[0]}" tabindex="0" role="button" aria-label="${esc(t("board.off_label", { mine: off[0], theirs: off[1] }))}">`
      + `<rect x="${trayX}" y="${TOP}" width="${SIDE_W}" height="${BOTTOM - TOP}" fill="transparent"/>`
      + `<rect class="focus-ring" x="${trayX + 3}" y="${TOP + 3}" width="${SIDE_W - 6}" height="${BOTTOM - TOP - 6}" rx="6"/></g>`);
    if (v.rollable && !(v.dice && v.dice.values)) out.push(this.rollButton(homeHalf, MID, colours.me));
    out.push("</svg>");
    return out.join("");
  }

  pointLabel(p, count, pin, colours, movable, target, selected) {
    const n = Math.abs(count);
    let label = t("board.point", { n: p });
    if (n) {
      const colour = count > 0 ? colours.me : colours.opp;
      const who = count > 0 ? t("board.yours") : t("board.theirs");
      label += ": " + (colour === "white" ? t("board.white_checkers", { count: n }) : t("board.black_checkers", { count: n })) + ` (${who})`;
    } else {
      label += ": " + t("board.empty");
    }
    if (pin) label += ", " + pinnedLabel(pin > 0);
    if (selected) label += ", " + t("board.selected");
    else if (movable) label += ", " + t("board.can_move");
    if (target) label += ", " + t("board.can_move_here");
    return label;
  }

  defs() {
    const id = this.id;
    return `<defs>
<linearGradient id="${id}-wood" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#8a5a2e"/><stop offset="0.5" stop-color="#6e4322"/><stop offset="1" stop-color="#5a3418"/></linearGradient>
<pattern id="${id}-grain" width="120" height="14" patternUnits="userSpaceOnUse"><path d="M0 7 Q30 2 60 7 T120 7" stroke="#3d230f" stroke-width="1.2" fill="none" opacity="0.5"/><path d="M0 12 Q40 9 80 12 T160 12" stroke="#a0703f" stroke-width="0.8" fill="none" opacity="0.4"/></pattern>
<linearGradient id="${id}-felt" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2c5f48"/><stop offset="0.5" stop-color="#245340"/><stop offset="1" stop-color="#2c5f48"/></linearGradient>
<linearGradient id="${id}-tri-dark" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#7d251f"/><stop offset="0.5" stop-color="#9b3228"/><stop offset="1" stop-color="#7d251f"/></linearGradient>
<linearGradient id="${id}-tri-light" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#d6c49b"/><stop offset="0.5" stop-color="#ecdfbf"/><stop offset="1" stop-color="#d6c49b"/></linearGradient>
<radialGradient id="${id}-white" cx="0.4" cy="0.35" r="0.7"><stop offset="0" stop-color="#ffffff"/><stop offset="0.7" stop-color="#efe8da"/><stop offset="1" stop-color="#d8cfbd"/></radialGradient>
<radialGradient id="${id}-black" cx="0.4" cy="0.35" r="0.7"><stop offset="0" stop-color="#5a5a5a"/><stop offset="0.6" stop-color="#2c2c2c"/><stop offset="1" stop-color="#161616"/></radialGradient>
<filter id="${id}-shadow" x="-30%" y="-30%" width="160%" height="160%"><feDropShadow dx="0" dy="2" stdDeviation="1.6" flood-color="#000" flood-opacity="0.45"/></filter>
<marker id="${id}-arrow" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="context-stroke"/></marker>
</defs>`;
  }

  /** One checker; `at` names the point it stands on (for the flights that land there). */
  checker(cx, cy, colour, cls, at = null) {
    const id = this.id;
    return `<g class="checker ${colour}${cls}"${at === null ? "" : ` data-at="${at}"`} filter="url(#${id}-shadow)"><circle cx="${cx}" cy="${cy}" r="${R - 1}" fill="url(#${id}-${colour})" class="c-body"/>`
      + `<circle cx="${cx}" cy="${cy}" r="${R - 8}" fill="none" class="c-rim"/></g>`;
  }

  /** A checker pinned under the other side's stack: a checker with a pin's mark, named by its title. */
  pinnedChecker(cx, cy, colour, mine) {
    const id = this.id;
    return `<g class="checker ${colour} pinned" data-pinned="${mine ? "me" : "opp"}" filter="url(#${id}-shadow)">`
      + `<title>${esc(pinnedLabel(mine))}</title>`
      + `<circle cx="${cx}" cy="${cy}" r="${R - 1}" fill="url(#${id}-${colour})" class="c-body"/>`
      + `<circle cx="${cx}" cy="${cy}" r="${R - 8}" fill="none" class="c-rim"/>`
      + `<path class="pin-mark" d="M${cx - 9} ${cy - 9} L${cx + 9} ${cy + 9} M${cx + 9} ${cy - 9} L${cx - 9} ${cy + 9}"/></g>`;
  }

  countLabel(cx, cy, n, colour) {
    return `<text class="stack-count ${colour}" x="${cx}" y="${cy + 8}" text-anchor="middle">${n}</text>`;
  }

  cube(cx, cy, value, owner, offered) {
    const s = this.geometry().CUBE;
    const shown = offered ? value * 2 : value === 1 ? 64 : value;
    return `<g class="cube${offered ? " offered" : ""}" data-cube="${value}" data-owner="${owner || "centre"}" filter="url(#${this.id}-shadow)">`
      + `<rect x="${cx - s / 2}" y="${cy - s / 2}" width="${s}" height="${s}" rx="8"/>`
      + `<text x="${cx}" y="${cy + 8}" text-anchor="middle">${shown}</text></g>`;
  }

  die(cx, cy, size, value, colour, used) {
    const spread = size * 0.26;
    const pr = size * 0.09;
    const pips = (PIPS[value] || []).map(([dx, dy]) => `<circle cx="${cx + dx * spread}" cy="${cy + dy * spread}" r="${pr}" class="pip"/>`).join("");
    return `<g class="die ${colour}${used ? " used" : ""}" data-value="${value}"><rect x="${cx - size / 2}" y="${cy - size / 2}" width="${size}" height="${size}" rx="${size * 0.18}" class="die-body"/>${pips}</g>`;
  }

  diceGroup(cx, cy, values, used, colour, size, cls, title) {
    const gap = size * 0.25;
    const total = values.length * size + (values.length - 1) * gap;
    let x = cx - total / 2 + size / 2;
    const parts = [];
    values.forEach((value, i) => {
      parts.push(this.die(x, cy, size, value, colour, used[i]));
      x += size + gap;
    });
    const label = title ? ` aria-label="${esc(title)}" role="img"` : "";
    return `<g class="${cls}" data-values="${values.join("-")}"${label}>${title ? `<title>${esc(title)}</title>` : ""}${parts.join("")}</g>`;
  }

  rollButton(cx, cy, colour) {
    const label = t("game.roll");
    return `<g class="roll-dice" data-roll="" tabindex="0" role="button" aria-label="${esc(label)}">`
      + `<rect x="${cx - 90}" y="${cy - 36}" width="180" height="72" rx="14" class="roll-bg"/>`
      + this.die(cx - 52, cy, 40, 5, colour, false) + this.die(cx + 52, cy, 40, 2, colour, false)
      + `<text x="${cx}" y="${cy + 7}" text-anchor="middle" class="roll-text">${esc(label)}</text>`
      + `<rect class="focus-ring" x="${cx - 92}" y="${cy - 38}" width="184" height="76" rx="15"/></g>`;
  }

  anchor(p, mine, corner, myBottom, trayX, stacks, leaving) {
    const g = this.geometry();
    const { TOP, BOTTOM, SIDE_W, BAR_X, BAR_W } = g;
    if (p === 25) {
      const down = mine === myBottom;
      return { x: BAR_X + BAR_W / 2, y: down ? MID + 56 : MID - 56 };
    }
    if (p === 0) {
      const down = mine === myBottom;
      return { x: trayX + SIDE_W / 2, y: down ? BOTTOM - 80 : TOP + 80 };
    }
    const { col, bottom } = pointPlace(p, corner);
    const under = this.view && this.view.pinned && this.view.pinned[p - 1] ? 1 : 0; // the stack stands on a pinned checker
    const n = Math.abs(stacks[p - 1]) + under;
    const index = leaving ? n : Math.max(n - 1, 0);
    return { x: colX(g, col) + PW / 2, y: slotY(g, bottom, index) };
  }

  arrow(a, corner, myBottom, trayX, stacks) {
    const from = this.anchor(a.from, a.mine, corner, myBottom, trayX, stacks, true);
    const to = this.anchor(a.to, a.mine, corner, myBottom, trayX, stacks, false);
    const mx = (from.x + to.x) / 2;
    const my = (from.y + to.y) / 2;
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const len = Math.hypot(dx, dy) || 1;
    const bend = Math.min(60, len * 0.25);
    const qx = mx - (dy / len) * bend;
    const qy = my + (dx / len) * bend;
    return `<path class="arrow ${a.pending ? "pending" : "last"}" d="M${from.x} ${from.y} Q${qx} ${qy} ${to.x} ${to.y}" marker-end="url(#${this.id}-arrow)"/>`;
  }
}

/** A pinned checker in words, after the stack that pins it: "the opponent's checker pinned beneath them". */
const pinnedLabel = (mine) => (mine ? t("board.pinned_yours") : t("board.pinned_theirs"));

function centre(el) {
  const box = el.getBoundingClientRect();
  return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
}
