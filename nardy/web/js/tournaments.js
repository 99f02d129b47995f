// Tournaments (docs/tournaments.md):
//   #/tournaments              the list (upcoming, running, finished) and the form to organise one
//   #/tournament/ID            a tournament: register or withdraw, the bracket (knockout) or the standings
//                              (Swiss, round robin), every round's tables and results
//   #/tournament-protocol/ID   the printable game protocol (001): one sheet per game
// The pages poll the server while a tournament runs; the server pairs the rounds and opens the tables.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, patch, errorText } from "./api.js";
import { currentUser } from "./session.js";
import {
  variantName, bankClockName, matchLengthName, kindName, reasonName, formatDate, formatDice, botLevelName,
} from "./names.js";
import { clocks, bankClockValue, levelsOf, matchLengthChoices } from "./variants.js";
import { variantOptions } from "./variant_choices.js";

const REFRESH_MS = 2000;
/** The longest match a tournament round is played to (the server's bound). */
const LONGEST_ROUND = 25;

function formatName(format) {
  return {
    knockout: t("tournament.knockout"),
    swiss: t("tournament.swiss"),
    round_robin: t("tournament.round_robin"),
  }[format] ?? format;
}

function statusName(status) {
  return {
    registering: t("tournament.registering"),
    running: t("tournament.running"),
    finished: t("tournament.finished"),
    cancelled: t("tournament.cancelled"),
  }[status] ?? status;
}

function startText(item) {
  if (item.start_kind === "scheduled") return t("tournament.starts_at", { time: formatDate(item.starts_at) });
  return t("tournament.starts_when_full", { n: item.max_players });
}

/** Call ``load`` now and every REFRESH_MS until the page is left; returns the unmount function. */
function polling(load) {
  let timer = null;
  let gone = false;
  const tick = async () => {
    const again = await load();
    if (!gone && again !== false) timer = setTimeout(tick, REFRESH_MS);
  };
  tick();
  return () => { gone = true; clearTimeout(timer); };
}

// ----------------------------------------------------------------- the list

export function mountTournaments(view, { toast, navigate }) {
  const lists = h("div", { id: "tournament-lists" }, h("p", {}, t("common.loading")));
  const user = currentUser();
  fill(view, h("section", { class: "page tournaments" },
    h("h1", {}, t("tournament.title")),
    user && !user.guest ? createForm({ toast, navigate }) : h("p", { class: "hint" }, t("tournament.sign_up_hint")),
    lists));

  return polling(async () => {
    try {
      const data = await get("/api/tournaments");
      fill(lists,
        listSection("upcoming", t("tournament.upcoming"), data.upcoming),
        listSection("running", t("tournament.running_list"), data.running),
        listSection("finished", t("tournament.finished_list"), data.finished));
    } catch (error) {
      fill(lists, h("p", { class: "error" }, errorText(error)));
    }
  });
}

function listSection(key, title, items) {
  return h("section", { class: "card", "data-list": key },
    h("h2", {}, title),
    items.length === 0 ? h("p", { class: "hint" }, t("tournament.none")) : scrollable(h("table", { class: "tournament-list" },
      h("thead", {}, h("tr", {},
        h("th", {}, t("tournament.name")), h("th", {}, t("tournament.format")), h("th", {}, t("lobby.variant")),
        h("th", {}, t("tournament.players")), h("th", {}, t("tournament.status")))),
      h("tbody", {}, items.map((item) => h("tr", { "data-tournament": item.id },
        h("td", {}, h("a", { href: `#/tournament/${encodeURIComponent(item.id)}` }, item.name)),
        h("td", {}, formatName(item.format)),
        h("td", {}, variantName(item.variant)),
        h("td", {}, `${item.players}/${item.max_players}`),
        h("td", {}, item.status === "registering" ? startText(item) : statusName(item.status))))))));
}

function createForm({ toast, navigate }) {
  const variant = h("select", { name: "variant" }, variantOptions());
  variant.value = "long-bolshie";
  const format = h("select", { name: "format" },
    ["knockout", "swiss", "round_robin"].map((f) => h("option", { value: f }, formatName(f))));
  const start = h("select", { name: "start" },
    h("option", { value: "sit_and_go" }, t("tournament.sit_and_go")),
    h("option", { value: "scheduled" }, t("tournament.scheduled")));
  const startsAt = h("input", { type: "datetime-local", name: "starts_at" });
  const startsLabel = h("label", { hidden: true }, t("tournament.start_time"), startsAt);
  const rounds = h("input", { type: "number", name: "rounds", min: 1, max: 20, placeholder: t("tournament.rounds_auto") });
  const roundsLabel = h("label", { hidden: true }, t("tournament.rounds"), rounds);
  const level = h("select", { name: "bot_level" });
  const botsFill = h("input", { type: "checkbox", name: "bots_fill" });
  const levelLabel = h("label", { hidden: true }, t("tournament.bot_level"), level);
  const bankClocks = clocks().bank;
  const clock = h("select", { name: "clock" }, bankClocks.map((c) => h("option", { value: bankClockValue(c) },
    bankClockName(c.delay_seconds, c.bank_seconds_per_point))));
  clock.value = bankClockValue(clocks().default_bank);

  const matchLength = h("select", { name: "match_length" });
  /** The match lengths the chosen variant is played to (GET /api/variants), the one picked kept where it still is. */
  const offerLengths = () => {
    const allowed = (matchLengthChoices(variant.value) ?? Array.from({ length: LONGEST_ROUND }, (_, i) => i + 1))
      .filter((n) => n >= 1 && n <= LONGEST_ROUND);
    const kept = allowed.includes(Number(matchLength.value)) ? Number(matchLength.value) : allowed[0];
    fill(matchLength, allowed.map((n) => h("option", { value: String(n), selected: n === kept }, String(n))));
  };

  const update = () => {
    offerLengths();
    fill(level, levelsOf(variant.value).map((l) => h("option", { value: l }, botLevelName(l))));
    startsLabel.hidden = start.value !== "scheduled";
    roundsLabel.hidden = format.value !== "swiss";
    botsFill.disabled = start.value !== "sit_and_go";
    levelLabel.hidden = !botsFill.checked || botsFill.disabled;
  };
  for (const input of [variant, format, start, botsFill]) input.addEventListener("change", update);
  update();

  const form = h("form", { class: "card tournament-create", "data-form": "tournament" },
    h("h2", {}, t("tournament.create_title")),
    h("label", {}, t("tournament.name"), h("input", { name: "name", required: true, maxlength: 80 })),
    h("label", {}, t("tournament.season"), h("input", { name: "season", maxlength: 40 })),
    h("label", {}, t("tournament.format"), format),
    h("label", {}, t("lobby.variant"), variant),
    h("label", {}, t("tournament.start"), start),
    startsLabel,
    h("label", {}, t("tournament.max_players"),
      h("input", { type: "number", name: "max_players", min: 2, max: 64, value: 8 })),
    h("label", {}, t("lobby.match_length"), matchLength),
    h("label", {}, t("lobby.time_control"), clock),
    roundsLabel,
    h("label", { class: "toggle" }, h("input", { type: "checkbox", name: "rated" }), t("lobby.rated")),
    h("label", { class: "toggle" }, botsFill, t("tournament.bots_fill")),
    levelLabel,
    h("button", { type: "submit", class: "primary" }, t("tournament.create")));

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const chosen = bankClocks.find((c) => bankClockValue(c) === clock.value);
    const body = {
      name: data.get("name"),
      format: format.value,
      variant: variant.value,
      start: start.value,
      max_players: Number(data.get("max_players")),
      round: { match_length: Number(matchLength.value), delay_seconds: chosen.delay_seconds, bank_seconds_per_point: chosen.bank_seconds_per_point },
      rated: data.get("rated") === "on",
    };
    if (data.get("season")) body.season = data.get("season");
    if (start.value === "scheduled" && startsAt.value) body.starts_at = new Date(startsAt.value).toISOString();
    if (format.value === "swiss" && rounds.value) body.rounds = Number(rounds.value);
    if (botsFill.checked && !botsFill.disabled) {
      body.bots_fill = true;
      body.bot_level = level.value;
    }
    try {
      const created = await post("/api/tournaments", body);
      navigate(`#/tournament/${encodeURIComponent(created.id)}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
  });
  return form;
}

// ----------------------------------------------------------------- one tournament

export function mountTournament(view, id, { toast }) {
  const page = h("section", { class: "page tournament", "data-tournament": id }, h("p", {}, t("common.loading")));
  // The organiser's form to change the tournament lives beside the page, which is drawn again on every poll:
  // drawn inside it, it would lose what the organiser is typing.
  const editSlot = h("div", { class: "page tournament-edit-slot" });
  let editor = null;
  fill(view, page, editSlot);

  function renderEditor(data) {
    const user = currentUser();
    if (data.status !== "registering" || !user || user.username !== data.organiser) {
      editor = null;
      fill(editSlot);
      return;
    }
    if (!editor) {
      editor = editForm(id, { toast, saved: render });
      fill(editSlot, editor.el);
    }
    editor.show(data);
  }

  async function act(action) {
    try {
      render(await post(`/api/tournaments/${encodeURIComponent(id)}/${action}`));
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  function render(data) {
    page.dataset.status = data.status;
    const settings = data.settings.default;
    const clock = settings.delay_seconds
      ? bankClockName(settings.delay_seconds, settings.bank_seconds_per_point)
      : t("time.seconds_per_move", { n: settings.move_seconds });
    const user = currentUser();
    const actions = [];
    if (data.status === "registering" && user && !user.guest) {
      actions.push(data.me.registered
        ? h("button", { type: "button", "data-action": "withdraw", onclick: () => act("withdraw") }, t("tournament.withdraw"))
        : h("button", { type: "button", class: "primary", "data-action": "register", onclick: () => act("register") },
          t("tournament.register")));
    } else if (data.status === "running" && data.me.registered) {
      actions.push(h("button", { type: "button", "data-action": "withdraw", onclick: () => act("withdraw") },
        t("tournament.withdraw")));
    }
    if (data.status === "registering" && user && user.username === data.organiser) {
      actions.push(h("button", {
        type: "button", "data-action": "cancel-tournament",
        onclick: () => { if (window.confirm(t("tournament.cancel_confirm"))) act("cancel"); },
      }, t("tournament.cancel")));
    }
    if (data.rounds_played.length) {
      actions.push(h("a", { href: `#/tournament-protocol/${encodeURIComponent(id)}`, "data-action": "protocol" },
        t("tournament.protocol")));
    }
    fill(page,
      h("h1", {}, data.name),
      h("p", { class: "tournament-meta" },
        [formatName(data.format), variantName(data.variant), matchLengthName(settings.match_length), clock,
          data.rated ? t("lobby.rated") : null, data.season ? t("tournament.season_n", { season: data.season }) : null]
          .filter(Boolean).join(" · ")),
      h("p", { class: "tournament-status", "data-status": data.status },
        data.status === "registering" ? `${statusName(data.status)} — ${startText(data)}` : statusName(data.status),
        data.status === "running" ? ` — ${t("tournament.round_of", { n: data.current_round, total: data.rounds })}` : null),
      actions.length ? h("div", { class: "row tournament-actions" }, actions) : null,
      data.status === "registering" ? entriesCard(data) : null,
      data.format === "knockout" && data.rounds_played.length ? bracket(data) : null,
      data.standings.length ? standingsCard(data) : null,
      data.rounds_played.length ? roundsCard(data) : null);
    renderEditor(data);
  }

  return polling(async () => {
    try {
      const data = await get(`/api/tournaments/${encodeURIComponent(id)}`);
      render(data);
      return data.status !== "finished" && data.status !== "cancelled";
    } catch (error) {
      fill(page, h("p", { class: "error" }, errorText(error)));
      return false;
    }
  });
}

/** A ``datetime-local`` input's value for an ISO time: the same moment on the reader's clock. */
function localInputValue(iso) {
  const moment = new Date(iso);
  return new Date(moment.getTime() - moment.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

/** The organiser's form to change the name, the season, the places and the start before the start:
 * {el, show(data)}. ``show`` fills it from the tournament while it is closed, so that a poll never
 * overwrites what is being typed. */
function editForm(id, { toast, saved }) {
  const name = h("input", { name: "name", required: true, maxlength: 80 });
  const season = h("input", { name: "season", maxlength: 40 });
  const maxPlayers = h("input", { type: "number", name: "max_players", min: 2, max: 64 });
  const minPlayers = h("input", { type: "number", name: "min_players", min: 2, max: 64 });
  const startsAt = h("input", { type: "datetime-local", name: "starts_at" });
  const startsLabel = h("label", {}, t("tournament.start_time"), startsAt);
  const form = h("form", { class: "card tournament-edit", "data-form": "tournament-edit" },
    h("label", {}, t("tournament.name"), name),
    h("label", {}, t("tournament.season"), season),
    h("label", {}, t("tournament.max_players"), maxPlayers),
    h("label", {}, t("tournament.min_players"), minPlayers),
    startsLabel,
    h("button", { type: "submit", class: "primary" }, t("tournament.save")));
  const el = h("details", { class: "tournament-edit-box", "data-edit": "" },
    h("summary", {}, t("tournament.edit")), form);
  let shown = null;

  function show(data) {
    shown = data;
    if (el.open) return;
    name.value = data.name;
    season.value = data.season || "";
    maxPlayers.value = String(data.max_players);
    maxPlayers.min = String(Math.max(2, data.players));
    minPlayers.value = String(data.min_players);
    startsLabel.hidden = data.start_kind !== "scheduled";
    startsAt.value = data.starts_at ? localInputValue(data.starts_at) : "";
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const changes = {};
    if (name.value.trim() !== shown.name) changes.name = name.value.trim();
    if ((season.value.trim() || null) !== shown.season) changes.season = season.value.trim() || null;
    if (Number(maxPlayers.value) !== shown.max_players) changes.max_players = Number(maxPlayers.value);
    if (Number(minPlayers.value) !== shown.min_players) changes.min_players = Number(minPlayers.value);
    if (shown.start_kind === "scheduled" && startsAt.value && startsAt.value !== localInputValue(shown.starts_at)) {
      changes.starts_at = new Date(startsAt.value).toISOString();
    }
    if (!Object.keys(changes).length) {
      el.open = false;
      return;
    }
    try {
      const data = await patch(`/api/tournaments/${encodeURIComponent(id)}`, changes);
      el.open = false;
      toast(t("tournament.saved"));
      saved(data);
    } catch (error) {
      toast(errorText(error), "error");
    }
  });
  return { el, show };
}

function entriesCard(data) {
  const present = data.entries.filter((e) => !e.withdrawn);
  return h("section", { class: "card" },
    h("h2", {}, t("tournament.entries", { n: present.length, max: data.max_players })),
    present.length === 0 ? h("p", { class: "hint" }, t("tournament.no_entries"))
      : h("ul", { class: "tournament-entries" }, present.map((e) => h("li", {}, entryName(e)))),
    data.bots_fill ? h("p", { class: "hint" }, t("tournament.bots_fill_note")) : null);
}

function entryName(side) {
  if (!side) return t("tournament.bye");
  return side.bot ? `${side.name} (${botLevelName(side.bot)})` : side.name;
}

function resultText(pairing) {
  if (pairing.result === "bye") return t("tournament.bye");
  if (pairing.result === "forfeit") return t("tournament.won_by_forfeit");
  if (pairing.result === "no_result") return t("tournament.no_result");
  if (pairing.score) return pairing.score.join(" : ");
  return pairing.table ? t("tournament.playing") : "";
}

function tableLink(pairing) {
  if (!pairing.table) return null;
  const live = pairing.result === null;
  return h("a", { href: `#/${live ? "table" : "replay"}/${encodeURIComponent(pairing.table)}`, "data-table": pairing.table },
    live ? t("tournament.watch") : t("tournament.replay"));
}

function side(pairing, which) {
  const entry = pairing[which];
  const won = entry && pairing.winner === entry.entry;
  return h("span", { class: `side${won ? " won" : ""}` }, entryName(entry));
}

function bracket(data) {
  return h("section", { class: "card" },
    h("h2", {}, t("tournament.bracket")),
    h("div", { class: "bracket" }, data.rounds_played.map((round) => h("div", { class: "bracket-round" },
      h("h3", {}, roundTitle(round.round, data)),
      round.pairings.map((p) => h("div", { class: "bracket-match", "data-pairing": p.id },
        side(p, "a"), side(p, "b"), h("span", { class: "hint" }, resultText(p), " ", tableLink(p))))))));
}

function roundTitle(number, data) {
  if (data.format === "knockout" && number === data.rounds) return t("tournament.final");
  return t("tournament.round_n", { n: number });
}

function standingsCard(data) {
  const tieBreaks = data.format !== "knockout";
  return h("section", { class: "card" },
    h("h2", {}, data.status === "finished" ? t("tournament.final_standings") : t("tournament.standings")),
    scrollable(h("table", { class: "standings", "data-standings": "" },
      h("thead", {}, h("tr", {},
        h("th", {}, "#"), h("th", {}, t("tournament.player")), h("th", {}, t("tournament.points")),
        tieBreaks ? h("th", { title: t("tournament.buchholz_hint") }, t("tournament.buchholz")) : null,
        tieBreaks ? h("th", { title: t("tournament.sb_hint") }, t("tournament.sb")) : null,
        h("th", {}, t("tournament.wins")), h("th", {}, t("tournament.losses")))),
      h("tbody", {}, data.standings.map((row) => h("tr", { "data-entry": row.entry },
        h("td", {}, String(row.rank)),
        h("td", {}, entryName(row), row.withdrawn ? h("span", { class: "hint" }, ` (${t("tournament.withdrawn")})`) : null),
        h("td", {}, String(row.points)),
        tieBreaks ? h("td", {}, String(row.buchholz)) : null,
        tieBreaks ? h("td", {}, String(row.sonneborn_berger)) : null,
        h("td", {}, String(row.wins)), h("td", {}, String(row.losses))))))),
    tieBreaks ? h("p", { class: "hint" }, t("tournament.tie_breaks")) : null);
}

function roundsCard(data) {
  return h("section", { class: "card" },
    h("h2", {}, t("tournament.rounds_title")),
    [...data.rounds_played].reverse().map((round) => h("div", { class: "tournament-round", "data-round": round.round },
      h("h3", {}, roundTitle(round.round, data), " · ", matchLengthName(round.settings.match_length)),
      scrollable(h("table", {}, h("tbody", {}, round.pairings.map((p) => h("tr", { "data-pairing": p.id },
        h("td", {}, String(p.board)), h("td", {}, side(p, "a")), h("td", {}, side(p, "b")),
        h("td", {}, resultText(p)), h("td", {}, tableLink(p))))))))));
}

// ----------------------------------------------------------------- the protocol

export function mountTournamentProtocol(view, id) {
  const page = h("section", { class: "page protocol" }, h("p", {}, t("common.loading")));
  fill(view, page);
  (async () => {
    try {
      const data = await get(`/api/tournaments/${encodeURIComponent(id)}/protocol.json`);
      const base = `/api/tournaments/${encodeURIComponent(id)}`;
      fill(page,
        h("h1", {}, t("tournament.protocol_title", { name: data.tournament.name })),
        h("div", { class: "row no-print" },
          h("button", { type: "button", "data-action": "print", onclick: () => window.print() }, t("tournament.print")),
          h("a", { href: `${base}/protocol.json`, download: "" }, "JSON"),
          h("a", { href: `${base}/protocol.mat`, download: "" }, ".mat"),
          h("a", { href: `#/tournament/${encodeURIComponent(id)}` }, t("tournament.back"))),
        data.games.length === 0 ? h("p", { class: "hint" }, t("tournament.no_games")) : data.games.map(protocolSheet));
    } catch (error) {
      fill(page, h("p", { class: "error" }, errorText(error)));
    }
  })();
  return () => {};
}

function protocolSheet(game) {
  const result = game.result;
  const field = (label, value) => h("tr", {}, h("th", {}, label), h("td", {}, value ?? "—"));
  return h("article", { class: "protocol-sheet card", "data-game": game.number },
    h("h2", {}, t("tournament.game_n", { n: game.number })),
    h("table", { class: "protocol-fields" }, h("tbody", {},
      field(t("tournament.date"), formatDate(game.date)),
      field(t("tournament.tournament"), game.tournament),
      field(t("tournament.season"), game.season),
      field(t("tournament.round"), t("tournament.round_board", { round: game.round, board: game.board })),
      field(t("tournament.white"), game.white),
      field(t("tournament.black"), game.black),
      field(t("tournament.started"), game.started),
      field(t("tournament.result"), result
        ? [result.winner, result.kind ? kindName(result.kind) : null, result.points ? t("tournament.points_n", { n: result.points }) : null,
          reasonName(result.reason)].filter(Boolean).join(" · ")
        : null),
      field(t("tournament.score"), `${game.players[0]} ${game.score[0]} : ${game.score[1]} ${game.players[1]}`))),
    h("ol", { class: "protocol-moves" }, game.moves.map((move) => h("li", {}, moveText(move)))),
    h("div", { class: "signatures" },
      h("span", {}, t("tournament.signature_players")), h("span", {}, t("tournament.signature_referee"))));
}

function moveText(move) {
  const dice = move.dice ? formatDice(move.dice) : "";
  if (move.action === "opening") return t("tournament.move_opening", { dice: move.dice.join("-") });
  if (move.action === "roll") return `${move.player}: ${dice}`;
  if (move.action === "move") return `${move.player}: ${move.move}${move.forced ? ` (${t("tournament.forced")})` : ""}`;
  return `${move.player ?? ""}: ${{
    resign: t("tournament.action_resign"),
    timeout: t("tournament.action_timeout"),
    forfeit: t("tournament.action_forfeit"),
    double: t("tournament.action_double"),
    take: t("tournament.action_take"),
    drop: t("tournament.action_drop"),
  }[move.action] ?? move.action}`;
}
