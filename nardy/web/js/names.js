// Names and formats shared by the pages: variants, results, time controls, move text.
// These describe what the server offers; they decide no rule.
import { t } from "./i18n.js";

export const VARIANTS = ["backgammon", "dave", "georgian", "long-traditional", "long-tournament", "long-bolshie"];

export function variantName(variant) {
  return {
    backgammon: t("variant.backgammon"),
    dave: t("variant.dave"),
    georgian: t("variant.georgian"),
    "long-traditional": t("variant.long_traditional"),
    "long-tournament": t("variant.long_tournament"),
    "long-bolshie": t("variant.long_bolshie"),
  }[variant] ?? variant;
}

export function variantHint(variant) {
  return {
    backgammon: t("variant.backgammon_hint"),
    dave: t("variant.dave_hint"),
    georgian: t("variant.georgian_hint"),
    "long-traditional": t("variant.long_traditional_hint"),
    "long-tournament": t("variant.long_tournament_hint"),
    "long-bolshie": t("variant.long_bolshie_hint"),
  }[variant] ?? "";
}

/** Long nardy's board geometry: the opponent's head is on our point 12. */
export const isLong = (variant) => String(variant).startsWith("long-");

/** Variants the create form offers cube options for (backgammon: optional; dave: always on). */
export const cubeVariant = (variant) => variant === "backgammon" || variant === "dave";
/** Whether a variant's tables default to final moves (nardy.rules: the traditional and tournament long
 * nardy of 004's platform); the server applies the same default when a table leaves it unsaid. */
export const movesFinalByDefault = (variant) => variant === "long-traditional" || variant === "long-tournament";

/** Match lengths the create form offers (0 = money play / single games). */
export function matchLengths(variant) {
  const odd = [];
  for (let n = 1; n <= 21; n += 2) odd.push(n);
  if (variant === "backgammon") return [0, ...odd];
  if (variant === "dave") return odd.slice(1);
  if (variant === "georgian") return [1, 3, 5, 7];
  return null; // long nardy: any length from 1, or 0
}

export function kindName(kind) {
  return {
    single: t("result.single"),
    gammon: t("result.gammon"),
    backgammon: t("result.backgammon"),
    oin: t("result.oin"),
    mars: t("result.mars"),
    koks: t("result.koks"),
  }[kind] ?? kind;
}

export function reasonName(reason) {
  return {
    "bore-off": t("reason.bore_off"),
    dropped: t("reason.dropped"),
    resigned: t("reason.resigned"),
    timeouts: t("reason.timeouts"),
    forfeit: t("reason.forfeit"),
    score: t("reason.score"),
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

/** The bank clocks the server offers (delay s, bank s per point); rated tables and rated matchmaking use one. */
export const BANK_CLOCKS = [
  { value: "b8-30", delay: 8, bank: 30 },
  { value: "b12-60", delay: 12, bank: 60 },
  { value: "b15-120", delay: 15, bank: 120 },
];
export const DEFAULT_BANK_CLOCK = "b12-60";

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

/** A player name from a lobby or profile summary; the server names the computer "Computer (level)". */
export function playerName(name) {
  if (!name) return "—";
  const bot = /^Computer \(([a-z-]+)\)$/.exec(name);
  return bot ? t("game.computer", { level: botLevelName(bot[1]) }) : name;
}

export function botLevelName(level) {
  return {
    random: t("bot.random"),
    beginner: t("bot.beginner"),
    intermediate: t("bot.intermediate"),
    advanced: t("bot.advanced"),
    expert: t("bot.expert"),
    "world-class": t("bot.world_class"),
  }[level] ?? level;
}

/** The computer levels of a variant, weakest first; world-class plays the short board only (the server checks). */
export function botLevels(variant) {
  const levels = ["random", "beginner", "intermediate", "advanced", "expert"];
  return SHORT_BOARD.includes(variant) ? [...levels, "world-class"] : levels;
}

const SHORT_BOARD = ["backgammon", "dave", "georgian"];
