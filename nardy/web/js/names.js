// Names and formats shared by the pages: variants, results, time controls, move text.
// These name what the server offers (its variants and clocks: variants.js); they decide no rule.
import { t, tData } from "./i18n.js";
import { variantRules } from "./variants.js";

/** A variant's name, translated by its id ("variant.long-traditional"), else the server's English title. */
export function variantName(variant) {
  return tData("variant", variant, variantRules(variant)?.title ?? variant);
}

/** The name of a variant family, in which ratings are kept (a variant's `family`: backgammon, georgian, long). */
export function familyName(family) {
  return tData("family", family, family);
}

/** The name of a group of variants, under which the pickers list them (a variant's `group`: short, long, greek,
 * turkish), translated ("variant_group.greek"), else the group as the server names it. */
export function variantGroupName(group) {
  return tData("variant_group", group, group);
}

/** A line about a variant under the form's choice ("variant_hint.long-traditional"), or nothing. */
export function variantHint(variant) {
  return tData("variant_hint", variant, "");
}

/** The name of a kind of win (a variant's scoring names: single, gammon... oin, mars, koks). */
export function kindName(kind) {
  return tData("result", kind, kind);
}

export function reasonName(reason) {
  return {
    "bore-off": t("reason.bore_off"),
    dropped: t("reason.dropped"),
    resigned: t("reason.resigned"),
    timeouts: t("reason.timeouts"),
    forfeit: t("reason.forfeit"),
    score: t("reason.score"),
    mother: t("reason.mother"),
  }[reason] ?? reason;
}

export function matchLengthName(length) {
  return length === 0 ? t("lobby.money_play") : t("lobby.points_match", { n: length });
}

export function timeControlName(seconds) {
  if (!seconds) return t("time.none");
  if (seconds >= 86400 && seconds % 86400 === 0) return t("time.days_per_move", { n: seconds / 86400 });
  return t("time.seconds_per_move", { n: seconds });
}

/** A bank clock: "12 s + 1 min per point" (the delay of each move, then the time bank per match point). */
export function bankClockName(delay, bankPerPoint) {
  const bank = bankPerPoint % 60 === 0 ? t("time.minutes", { n: bankPerPoint / 60 }) : t("time.seconds", { n: bankPerPoint });
  return t("time.bank_clock", { delay, bank });
}

/** The time control of a table (its view, or a lobby entry): a bank clock, a limit per move, or none. */
export function timeControlOf(table) {
  if (table.delay_seconds && table.bank_seconds_per_point) return bankClockName(table.delay_seconds, table.bank_seconds_per_point);
  return timeControlName(table.move_seconds);
}

/**
 * Whether a rated table's match counts for the ratings, from the server's view: null for an unrated
 * table, else {counts, text}. The server's rule (``unrated_reason``) is shown before the match starts,
 * and its verdict (``match.rated``) once the match is over.
 */
export function ratingNote(state) {
  if (!state.rated) return null;
  const verdict = state.match ? state.match.rated : null;
  const reason = state.unrated_reason;
  if (!reason && verdict !== false) return { counts: true, text: t("lobby.rated") };
  const why = {
    computer: t("rating.unrated_computer"),
    guest: t("rating.unrated_guest"),
    same_player: t("rating.unrated_same_player"),
  }[reason] ?? t("rating.unrated");
  return { counts: false, text: why };
}

/** A remaining time: m:ss, or h:mm:ss, or days and hours for correspondence. */
export function formatRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (days > 0) return t("time.days_hours", { d: days, h: hours });
  if (hours > 0) return `${hours}:${two(minutes)}:${two(seconds)}`;
  return `${minutes}:${two(seconds)}`;
}

/** Move text like "24/18 13/8*", in the mover's own numbering. */
export function formatSteps(steps) {
  if (!steps || !steps.length) return t("log.pass_short");
  return steps.map((s) => {
    const from = s.source === 25 ? t("notation.bar") : String(s.source);
    const to = s.target === 0 ? t("notation.off") : String(s.target);
    return `${from}/${to}${s.hit ? "*" : ""}`;
  }).join(" ");
}

/** A roll as text, the larger die first as gnubg writes it ("5-2", never "2-5"), wherever it is shown. */
export function formatDice(dice) {
  return dice && dice.length ? [...dice].sort((a, b) => b - a).join("-") : "";
}

export function formatDate(iso) {
  if (!iso) return "";
  try {
    return new Date(iso).toLocaleString(document.documentElement.lang || undefined, { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return iso;
  }
}

/** A seat's display name (the computer's name comes from the server in English). */
export function seatName(seat) {
  if (!seat) return t("game.empty_seat");
  if (seat.bot) return t("game.computer", { level: botLevelName(seat.bot) });
  return seat.name;
}

/** A player name from a lobby or profile summary: the computer by its level (the entry's `bots`), else the name. */
export function playerName(name, botLevel) {
  if (botLevel) return t("game.computer", { level: botLevelName(botLevel) });
  return name || "—";
}

/** The name of a computer level (a variant's levels). */
export function botLevelName(level) {
  return tData("bot", level, level);
}
