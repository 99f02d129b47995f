// The variants the server plays and the clocks it offers, as GET /api/variants describes them (docs/protocol.md,
// "Variants"). The page loads them once before it shows anything; every rule a page needs to offer a choice or
// draw a board (match lengths, money play, cube options, moves-final default, levels, clocks, the opponent's
// numbering, the names of wins) is read from here, so a new variant needs no change to the client but its
// translations.
import { get } from "./api.js";

let loading = null;
let loaded = { variants: [], clocks: { move_seconds: [], correspondence_days: [], bank: [], default_bank: null } };

/** Fetch the variants once (later calls share the first answer); the page awaits it before routing. */
export function loadVariants() {
  if (!loading) {
    loading = get("/api/variants").then((answer) => { loaded = answer; return answer; });
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/** Every variant, in the order the server offers them. */
export const variants = () => loaded.variants;

/** One variant's description, or null for a name the server does not know. */
export const variantRules = (id) => loaded.variants.find((v) => v.id === id) ?? null;

/** The clocks the server offers: {move_seconds, correspondence_days, bank, default_bank}. */
export const clocks = () => loaded.clocks;

/** A bank clock's value in a form ("b12-60": the delay, then the bank per point). */
export const bankClockValue = (clock) => (clock ? `b${clock.delay_seconds}-${clock.bank_seconds_per_point}` : "");

/** The match lengths a form offers for a variant (0 = money play first, where allowed), or null for any
 * length from (money play ? 0 : 1) to the variant's longest_match. */
export function matchLengthChoices(id) {
  const rules = variantRules(id);
  if (!rules || !rules.match_lengths) return null;
  return rules.money_play ? [0, ...rules.match_lengths] : [...rules.match_lengths];
}

/** The shortest match a variant is played to (its quick games are played to it). */
export function shortestMatch(id) {
  const rules = variantRules(id);
  return rules && rules.match_lengths ? rules.match_lengths[0] : 1;
}

/** The computer's levels for a variant, weakest first. */
export const levelsOf = (id) => (variantRules(id)?.levels ?? []);

/** What hints and the analysis board offer in a variant (the server's bots decide): {levels, unavailable},
 * its levels weakest first, or none and the reason's code. */
export const analysisOf = (id) => variantRules(id)?.analysis ?? { levels: [], unavailable: null };

/** The place the opponent numbers q (0..25), in the numbering of the other side, for a variant's board. */
export function fromOpponent(id, q) {
  const numbers = variantRules(id)?.opponent_points;
  return numbers ? numbers[q] : q;
}

/** Links to the match files a finished match of a variant can be downloaded as ({href, file, kind, text}),
 * for the match whose export routes start at `base` (`${base}/export.mat`...) and whose files are `stem.kind`. */
export function matchFileLinks(id, base, stem) {
  const label = { mat: ".mat", sgf: "SGF" };
  return (variantRules(id)?.match_files ?? ["mat"]).map((kind) => (
    { href: `${base}/export.${kind}`, file: `${stem}.${kind}`, kind, text: label[kind] ?? kind }));
}
