// The home page (#/): a quick-pairing grid (one tap joins a rated pool), the computer at once, the people and
// games online with a featured live game, the next tournaments, open tables to join and games to watch, and the
// create form behind "Create a table" (open on a wide screen; on a phone the grid comes first).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, errorText } from "./api.js";
import { rememberInvite } from "./invites.js";
import { currentUser, ensureUser } from "./session.js";
import { findOpponentCard } from "./matchmaking.js";
import { quickPairingCard } from "./quick_pairing.js";
import { liveCard } from "./featured_game.js";
import { nextTournamentsCard } from "./next_tournaments.js";
import { chouetteCard } from "./chouette_lobby.js";
import { coinsNote, stakeText } from "./coins.js";
import {
  variantName, variantHint, matchLengthName, timeControlName, timeControlOf, bankClockName, botLevelName, playerName,
} from "./names.js";
import { variantRules, clocks, bankClockValue, matchLengthChoices, shortestMatch, levelsOf } from "./variants.js";
import { variantOptions } from "./variant_choices.js";

/** The time controls the server offers (GET /api/variants): none, its bank clocks, seconds per move, days per move. */
function timeControls() {
  const offered = clocks();
  return [
    { value: "", seconds: null },
    ...offered.bank.map((c) => ({ value: bankClockValue(c), delay: c.delay_seconds, bank: c.bank_seconds_per_point })),
    ...offered.move_seconds.map((seconds) => ({ value: `s${seconds}`, seconds })),
    ...offered.correspondence_days.map((days) => ({ value: `d${days}`, days })),
  ];
}

/** What a backgammon counts, as the form offers it (a variant's backgammon_values: 3, or 2 by agreement). */
const backgammonValueName = (n) => ({ 3: t("lobby.backgammon_three"), 2: t("lobby.backgammon_two") })[n] ?? String(n);
const REFRESH_MS = 5000;
const LIVE_PAGE = 10;
const QUICK_LEVEL_KEY = "nardy.quickLevel";
const DEFAULT_QUICK_LEVEL = "intermediate";
/** Where the create form starts open: beside the grid on a wide screen; a phone shows the grid first. */
const WIDE_SCREEN = "(min-width: 901px)";

/** Fill a level <select> with the levels of ``variant``, keeping ``wanted`` when the variant has it. */
function offerLevels(select, variant, wanted) {
  const levels = levelsOf(variant);
  fill(select, ...levels.map((l) => h("option", { value: l }, botLevelName(l))));
  select.value = levels.includes(wanted) ? wanted : levels.includes(DEFAULT_QUICK_LEVEL) ? DEFAULT_QUICK_LEVEL : levels[0];
}

function rememberedQuickLevel() {
  try { return localStorage.getItem(QUICK_LEVEL_KEY) || DEFAULT_QUICK_LEVEL; } catch { return DEFAULT_QUICK_LEVEL; }
}

export function mountLobby(view, { socket, toast, navigate }) {
  let timer = null;
  let liveOffset = 0;
  // Each list holds a line until its request answers, and "my games" shows at once for a known player: the lists
  // fill in one by one, and cards that first appeared empty or not at all pushed the ones below them down
  // under the reader's pointer.
  const loading = () => h("p", { class: "hint" }, t("common.loading"));
  const openList = h("div", { class: "table-list", id: "open-tables" }, loading());
  const liveList = h("div", { class: "table-list", id: "live-tables" }, loading());
  const livePager = h("div", { class: "row pager", id: "live-pager" });
  const myList = h("div", { class: "table-list", id: "my-tables" }, loading());
  const myCard = h("section", { class: "card", id: "my-games", hidden: !currentUser() }, h("h2", {}, t("lobby.my_games")), myList);

  async function start(body) {
    try {
      const hadUser = !!currentUser();
      await ensureUser();
      if (!hadUser) socket.reconnect();
      const created = await post("/api/tables", body);
      if (created.invite) sessionStorage.setItem(`nardy.invite.${created.table.table}`, created.invite);
      navigate(`#/table/${created.table.table}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  // ----- quick play against the computer, at the level this browser chose last (intermediate at first)
  const quickVariant = h("select", { name: "quick-variant", "aria-label": t("lobby.variant") },
    variantOptions());
  const quickLevel = h("select", { name: "quick-level", "aria-label": t("lobby.bot_level") });
  offerLevels(quickLevel, quickVariant.value, rememberedQuickLevel());
  quickVariant.addEventListener("change", () => offerLevels(quickLevel, quickVariant.value, rememberedQuickLevel()));
  quickLevel.addEventListener("change", () => {
    try { localStorage.setItem(QUICK_LEVEL_KEY, quickLevel.value); } catch { /* private mode: not remembered */ }
  });
  const quick = h("section", { class: "card quick" },
    h("h2", {}, t("lobby.quick_title")),
    h("p", { class: "hint" }, t("lobby.quick_hint")),
    h("div", { class: "row" }, quickVariant, quickLevel,
      h("button", {
        type: "button", class: "primary big", "data-action": "quick-play",
        onclick: () => {
          // the variant's shortest match, with the cube where the variant allows one
          const variant = quickVariant.value;
          start({ variant, match_length: shortestMatch(variant), opponent: "computer", bot_level: quickLevel.value,
            options: variantRules(variant)?.cube.allowed ? { cube: true } : {} });
        },
      }, t("lobby.play_computer"))),
  );

  // ----- the create form
  const form = createForm(start);

  // ----- lists
  async function refresh() {
    try {
      const lobby = await get(`/api/tables?kind=match&limit=${LIVE_PAGE}&offset=${liveOffset}`);
      if (liveOffset > 0 && liveOffset >= lobby.playing_total) {
        liveOffset = Math.max(0, Math.floor((lobby.playing_total - 1) / LIVE_PAGE) * LIVE_PAGE);
        refresh();
        return;
      }
      const me = currentUser();
      fill(openList, lobby.waiting.length ? lobby.waiting.map((row) => tableRow(row, "join", me)) : h("p", { class: "hint" }, t("lobby.no_open_tables")));
      fill(liveList, lobby.playing.length ? lobby.playing.map((row) => tableRow(row, "watch", me)) : h("p", { class: "hint" }, t("lobby.no_live_games")));
      renderPager(lobby.playing_total);
    } catch (error) {
      fill(openList, h("p", { class: "error" }, errorText(error)));
    }
  }

  // The games people are playing, a page at a time (games against the computer are their players' own).
  function renderPager(total) {
    const turn = (offset) => { liveOffset = offset; refresh(); };
    fill(livePager, total > LIVE_PAGE ? [
      h("button", { type: "button", "data-action": "live-newer", disabled: liveOffset === 0,
        onclick: () => turn(Math.max(0, liveOffset - LIVE_PAGE)) }, t("lobby.newer")),
      h("span", { class: "hint", "data-page": "" }, t("lobby.page", {
        from: liveOffset + 1, to: Math.min(total, liveOffset + LIVE_PAGE), total })),
      h("button", { type: "button", "data-action": "live-older", disabled: liveOffset + LIVE_PAGE >= total,
        onclick: () => turn(liveOffset + LIVE_PAGE) }, t("lobby.older")),
    ] : null);
  }

  // My games: the tables and chouettes I play at that are not over, to go back to (a guest's too).
  async function refreshMine() {
    if (!currentUser()) { myCard.hidden = true; return; }
    try {
      const { tables } = await get("/api/me/tables");
      myCard.hidden = false;
      fill(myList, tables.length ? tables.map(myRow) : h("p", { class: "hint" }, t("lobby.no_my_games")));
    } catch {
      myCard.hidden = true;
    }
  }

  function myRow(row) {
    const score = row.score && row.score.score ? row.score.score.join(" : ") : "";
    return h("div", { class: "table-row", "data-my-table": row.table },
      h("span", { class: "variant" }, variantName(row.variant)),
      h("span", {}, matchLengthName(row.match_length)),
      h("span", {}, timeControlOf(row)),
      row.stake ? h("span", { class: "badge", "data-stake": String(row.stake), title: t("coins.note") }, stakeText(row)) : null,
      h("span", { class: "players" }, row.players.map((p, i) => playerName(p, row.bots && row.bots[i])).join(" – ")),
      score ? h("span", { class: "score" }, score) : null,
      h("a", { href: `#/${row.kind === "chouette" ? "chouette" : "table"}/${row.table}`, class: "button primary", "data-resume": row.table },
        row.status === "waiting" ? t("lobby.open") : t("lobby.resume")));
  }

  async function joinTable(id) {
    try {
      const hadUser = !!currentUser();
      await ensureUser();
      if (!hadUser) socket.reconnect();
      await post(`/api/tables/${encodeURIComponent(id)}/join`, {});
      navigate(`#/table/${id}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  function tableRow(row, kind, me) {
    const players = row.players.map((p, i) => playerName(p, row.bots && row.bots[i])).join(" – ");
    const mine = me && row.players.includes(me.username);
    const action = kind === "join" && !mine
      ? h("button", { type: "button", class: "primary", "data-join": row.table, onclick: () => joinTable(row.table) }, t("lobby.join"))
      : h("a", { href: `#/table/${row.table}`, class: "button", "data-watch": row.table }, mine ? t("lobby.open") : t("lobby.watch"));
    const score = row.score && row.score.score ? row.score.score.join(" : ") : "";
    return h("div", { class: "table-row", "data-table": row.table },
      h("span", { class: "variant" }, variantName(row.variant)),
      h("span", {}, matchLengthName(row.match_length)),
      h("span", {}, timeControlOf(row)),
      row.rated ? h("span", { class: "badge" }, t("lobby.rated")) : null,
      row.stake ? h("span", { class: "badge", "data-stake": String(row.stake), title: t("coins.note") }, stakeText(row)) : null,
      h("span", { class: "players" }, players),
      score ? h("span", { class: "score" }, score) : null,
      action);
  }

  const finder = findOpponentCard({ toast, navigate });
  const pairing = quickPairingCard({ join: finder.join, status: finder.status });
  const live = liveCard({ socket, navigate });
  const tournaments = nextTournamentsCard();
  const chouettes = chouetteCard({ socket, toast, navigate });
  const create = h("details", { class: "card create-table", open: matchMedia(WIDE_SCREEN).matches },
    h("summary", { "data-action": "create-table" }, t("lobby.create_title")), form);
  fill(view, h("section", { class: "page lobby" },
    h("div", { class: "lobby-grid" },
      h("div", {}, pairing.el, quick, create, finder.el),
      h("div", {},
        live.el,
        myCard,
        h("section", { class: "card" }, h("h2", {}, t("lobby.open_tables")), openList),
        h("section", { class: "card" }, h("h2", {}, t("lobby.live_games")), liveList, livePager),
        tournaments.el,
        chouettes.el))));
  const refreshAll = () => { refresh(); refreshMine(); chouettes.refresh(); pairing.refresh(); live.refresh(); };
  refreshAll();
  tournaments.refresh();
  timer = setInterval(refreshAll, REFRESH_MS);
  return () => { clearInterval(timer); finder.stop(); live.stop(); };
}

function createForm(start) {
  const TIME_CONTROLS = timeControls();
  const bankClocks = TIME_CONTROLS.filter((c) => c.delay);
  const defaultBankClock = bankClockValue(clocks().default_bank);
  const variant = h("select", { name: "variant" }, variantOptions());
  const variantNote = h("small", { class: "hint" });
  const lengthSlot = h("span", { class: "length-slot" });
  const time = h("select", { name: "time" }, TIME_CONTROLS.map((c) => h("option", { value: c.value },
    c.delay ? bankClockName(c.delay, c.bank) : c.seconds ? timeControlName(c.seconds) : c.days ? timeControlName(c.days * 86400) : t("time.none"))));
  const timeNote = h("small", { class: "hint" }, t("lobby.bank_clock_hint"));
  const opponent = h("select", { name: "opponent" },
    h("option", { value: "human" }, t("lobby.opponent_human")),
    h("option", { value: "computer" }, t("lobby.opponent_computer")));
  const botLevel = h("select", { name: "bot_level" });
  const rated = h("input", { type: "checkbox", name: "rated" });
  const privateBox = h("input", { type: "checkbox", name: "private" });
  const cube = h("input", { type: "checkbox", name: "cube", checked: true });
  const jacoby = h("input", { type: "checkbox", name: "jacoby" });
  const autoDoubles = h("select", { name: "automatic_doubles" });
  const bgValue = h("select", { name: "backgammon_value" });
  const beavers = h("input", { type: "checkbox", name: "beavers" });
  const movesFinal = h("input", { type: "checkbox", name: "moves_final" });
  const seed = h("input", { type: "text", name: "client_seed", maxlength: "64", autocomplete: "off", spellcheck: "false" });
  const stake = h("input", { type: "number", name: "stake", min: "0", max: "1000000", step: "1", value: "0", inputmode: "numeric" });
  let length = null;

  const labelled = (text, control, extra) => h("label", { class: "field" }, h("span", {}, text), control, extra || null);
  const check = (text, control, hint) => h("label", { class: "toggle" }, control, h("span", {}, text), hint ? h("small", { class: "hint" }, hint) : null);
  const cubeBox = h("fieldset", { class: "cube-options" },
    h("legend", {}, t("lobby.cube_options")),
    check(t("lobby.cube"), cube, t("lobby.cube_hint")),
    check(t("lobby.jacoby"), jacoby, t("lobby.jacoby_hint")),
    labelled(t("lobby.automatic_doubles"), autoDoubles, h("small", { class: "hint" }, t("lobby.automatic_doubles_hint"))),
    labelled(t("lobby.backgammon_value"), bgValue),
    check(t("lobby.beavers"), beavers, t("lobby.beavers_hint")));

  // Moves are final by the variant's default between people; against the computer the player may undo
  // before confirming unless they tick it; a rated table keeps a variant's final moves (docs/rules.md).
  const finalByDefault = () => Boolean(variantRules(variant.value)?.moves_final) && opponent.value !== "computer";

  function update() {
    const v = variant.value;
    const rules = variantRules(v);
    if (!rules) return; // the server's variants could not be read (the page says so)
    movesFinal.checked = finalByDefault();
    variantNote.textContent = variantHint(v);
    offerLevels(botLevel, v, botLevel.value || DEFAULT_QUICK_LEVEL);
    const doubles = [];
    for (let n = 0; n <= rules.cube.automatic_doubles; n++) doubles.push(n);
    fill(autoDoubles, doubles.map((n) => h("option", { value: String(n) }, n === 0 ? t("lobby.off") : String(n))));
    fill(bgValue, rules.scoring.backgammon_values.map((n) => h("option", { value: String(n) }, backgammonValueName(n))));
    const lengths = matchLengthChoices(v);
    const previous = length ? Number(length.value) : 1;
    if (lengths) {
      length = h("select", { name: "match_length" }, lengths.map((n) => h("option", { value: String(n) }, matchLengthName(n))));
      length.value = String(lengths.includes(previous) ? previous : lengths[0] === 0 ? lengths[1] : lengths[0]);
    } else {
      const shortest = rules.money_play ? 0 : 1;
      length = h("input", {
        type: "number", name: "match_length", min: String(shortest), max: String(rules.longest_match), step: "1",
        value: String(Math.max(shortest, Math.min(previous, rules.longest_match))), "aria-describedby": "length-hint",
      });
    }
    length.addEventListener("change", refreshOptions);
    fill(lengthSlot, length, lengths ? null : h("small", { class: "hint", id: "length-hint" }, t("lobby.long_length_hint")));
    refreshOptions();
  }

  function refreshOptions() {
    if (!length) return;
    const rules = variantRules(variant.value).cube;
    const money = Number(length.value) === 0;
    cubeBox.hidden = !rules.allowed;
    if (rules.required) { cube.checked = true; cube.disabled = true; } else cube.disabled = false;
    const withCube = cube.checked;
    jacoby.disabled = !money || !withCube || !rules.jacoby;
    autoDoubles.disabled = !money || !withCube || rules.automatic_doubles === 0;
    if (jacoby.disabled) jacoby.checked = false;
    if (autoDoubles.disabled) autoDoubles.value = "0";
    beavers.disabled = !withCube || !rules.beavers;
    if (beavers.disabled) beavers.checked = false;
    bgValue.closest("label").hidden = bgValue.options.length === 0;
    const computer = opponent.value === "computer";
    const guest = Boolean(currentUser()?.guest);
    rated.disabled = computer || guest;
    rated.title = guest ? t("lobby.rated_account") : "";
    if (rated.disabled) rated.checked = false;
    const finalKept = rated.checked && variantRules(variant.value).moves_final;
    if (finalKept) movesFinal.checked = true;
    movesFinal.disabled = finalKept;
    movesFinal.title = finalKept ? t("lobby.moves_final_rated") : "";
    // A rated table needs a bank clock (the server refuses one without): offer only those, the standard first.
    for (const option of time.options) option.disabled = rated.checked && !bankClocks.some((c) => c.value === option.value);
    if (rated.checked && time.selectedOptions[0]?.disabled) time.value = defaultBankClock;
    privateBox.disabled = computer;
    if (computer) privateBox.checked = false;
    // Coins: account holders only, against a person, in a match to a number of points (the server refuses the rest).
    const noCoins = computer || guest || !currentUser() || money;
    stake.disabled = noCoins;
    if (noCoins) stake.value = "0";
    stake.title = guest || !currentUser() ? t("coins.stake_account") : "";
    // A coin table needs a time control (the server refuses one without): the standard bank clock unless one is chosen.
    const staked = !noCoins && Number(stake.value) > 0;
    time.options[0].disabled = time.options[0].disabled || staked;
    if (staked && time.value === "") time.value = defaultBankClock;
    botLevel.closest("label").hidden = !computer;
  }

  variant.addEventListener("change", update);
  cube.addEventListener("change", refreshOptions);
  opponent.addEventListener("change", () => {
    movesFinal.checked = finalByDefault();
    refreshOptions();
  });
  rated.addEventListener("change", refreshOptions);
  stake.addEventListener("input", refreshOptions);

  const form = h("form", {
    class: "card create", "aria-labelledby": "create-title",
    onsubmit: (event) => {
      event.preventDefault();
      const v = variant.value;
      const body = {
        variant: v,
        match_length: Number(length.value),
        rated: rated.checked,
        private: privateBox.checked,
        opponent: opponent.value,
      };
      if (opponent.value === "computer") body.bot_level = botLevel.value;
      if (seed.value.trim()) body.client_seed = seed.value.trim();
      if (!stake.disabled && Number(stake.value) > 0) body.stake = Number(stake.value);
      const control = TIME_CONTROLS.find((c) => c.value === time.value);
      if (control && control.seconds) body.move_seconds = control.seconds;
      if (control && control.days) body.correspondence_days = control.days;
      if (control && control.delay) Object.assign(body, { delay_seconds: control.delay, bank_seconds_per_point: control.bank });
      body.options = { moves_final: movesFinal.checked };
      if (variantRules(v).cube.allowed) {
        Object.assign(body.options, {
          cube: cube.checked, jacoby: jacoby.checked, automatic_doubles: Number(autoDoubles.value), beavers: beavers.checked,
        });
      }
      if (bgValue.options.length) body.options.backgammon_value = Number(bgValue.value);
      start(body);
    },
  },
  h("h2", { id: "create-title" }, t("lobby.create_title")),
  labelled(t("lobby.variant"), variant, variantNote),
  h("label", { class: "field" }, h("span", {}, t("lobby.match_length")), lengthSlot),
  labelled(t("lobby.time_control"), time, timeNote),
  cubeBox,
  check(t("lobby.moves_final"), movesFinal, t("lobby.moves_final_hint")),
  labelled(t("lobby.opponent"), opponent),
  labelled(t("lobby.bot_level"), botLevel),
  check(t("lobby.rated"), rated, t("lobby.rated_hint")),
  check(t("lobby.private"), privateBox, t("lobby.private_hint")),
  h("fieldset", { class: "coins-options" },
    h("legend", {}, t("coins.title")),
    labelled(t("coins.stake"), stake, h("small", { class: "hint" }, t("coins.stake_hint"))),
    coinsNote()),
  h("details", { class: "advanced" },
    h("summary", {}, t("lobby.dice_seed")),
    labelled(t("lobby.dice_seed_label"), seed, h("small", { class: "hint" }, t("lobby.dice_seed_hint")))),
  h("button", { type: "submit", class: "primary", "data-action": "create" }, t("lobby.create")));
  update();
  return form;
}

/** #/invite/TOKEN: find the private table and take its free seat. */
export function mountInvite(view, token, { socket, toast, navigate }) {
  fill(view, h("section", { class: "page" }, h("p", {}, t("common.loading"))));
  (async () => {
    let tableId;
    let kind;
    try {
      ({ table: tableId, kind } = await get(`/api/invites/${encodeURIComponent(token)}`));
    } catch (error) {
      fill(view, h("section", { class: "page" }, h("h1", {}, t("invite.invalid")), h("a", { href: "#/" }, t("nav.lobby"))));
      return;
    }
    const chouette = kind === "chouette";
    const page = `#/${chouette ? "chouette" : "table"}/${tableId}`;
    rememberInvite(tableId, token); // a private table is shown to holders of its invite
    let table;
    try {
      table = await get(`/api/${chouette ? "chouettes" : "tables"}/${encodeURIComponent(tableId)}`);
    } catch (error) { toast(errorText(error), "error"); return; }
    const host = chouette ? (table.players || [])[0] : table.seats.find((s) => s);
    const open = chouette ? table.status !== "forming" && (table.players || []).length < table.max_players : table.status === "waiting";
    const join = async () => {
      try {
        const hadUser = !!currentUser();
        await ensureUser();
        if (!hadUser) socket.reconnect();
        await post(`/api/${chouette ? "chouettes" : "tables"}/${encodeURIComponent(tableId)}/join`, { invite: token });
        navigate(page);
      } catch (error) {
        toast(errorText(error), "error");
      }
    };
    const about = chouette
      ? `${t("chouette.title")} · ${timeControlName(table.move_seconds)}`
      : `${variantName(table.variant)} · ${matchLengthName(table.match_length)} · ${timeControlOf(table)}`;
    fill(view, h("section", { class: "page invite card" },
      h("h1", {}, t("invite.title", { name: host ? host.name : "?" })),
      h("p", {}, about),
      open
        ? h("button", { type: "button", class: "primary big", "data-action": "accept-invite", onclick: join }, t("invite.join"))
        : h("a", { href: page, class: "button" }, t("lobby.watch")),
      currentUser() ? null : h("p", { class: "hint" }, t("invite.guest_hint"))));
  })();
  return () => {};
}
