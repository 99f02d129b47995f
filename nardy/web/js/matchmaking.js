// "Find an opponent": join the rated pool, wait, answer an offer 400+ points apart, open the table when matched.
// The pairing itself is the server's (GET /api/matchmaking/status is polled); nothing is decided here.
// The page goes to the table only when the pairing happens while the player waits here; a match already
// under way is offered as a link (the server never answers "matched" with a match that is over).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, errorText } from "./api.js";
import { currentUser } from "./session.js";
import { bankClockName } from "./names.js";
import { variantRules, clocks, bankClockValue } from "./variants.js";
import { variantOptions } from "./variant_choices.js";

const POLL_MS = 2000;

export function findOpponentCard({ toast, navigate }) {
  let timer = null;
  let looking = false;
  const variant = h("select", { name: "mm-variant", "aria-label": t("lobby.variant") },
    variantOptions());
  const length = h("select", { name: "mm-length", "aria-label": t("matchmaking.length") });
  const offerLengths = () => {
    // the lengths the server pairs players of this variant for (/api/variants)
    const lengths = variantRules(variant.value)?.pairing_lengths ?? [];
    const kept = length.value;
    fill(length, lengths.map((n) => h("option", { value: String(n) }, t("matchmaking.points", { n }))));
    if ([...length.options].some((o) => o.value === kept)) length.value = kept;
  };
  offerLengths();
  variant.addEventListener("change", offerLengths);
  const bankClocks = clocks().bank;
  const clock = h("select", { name: "mm-clock", "aria-label": t("lobby.time_control"), title: t("lobby.bank_clock_hint") },
    bankClocks.map((c) => h("option", { value: bankClockValue(c) }, bankClockName(c.delay_seconds, c.bank_seconds_per_point))));
  clock.value = bankClockValue(clocks().default_bank);
  const status = h("div", { class: "mm-status", role: "status", "aria-live": "polite" });
  const card = h("section", { class: "card matchmaking", id: "find-opponent" },
    h("h2", {}, t("matchmaking.title")),
    h("p", { class: "hint" }, t("matchmaking.hint")),
    h("div", { class: "row" }, variant, length, clock,
      h("button", { type: "button", class: "primary", "data-action": "find-opponent", onclick: () => join(chosenPool()) },
        t("matchmaking.find"))),
    status);

  /** The pool the card's choices name. */
  function chosenPool() {
    const timing = bankClocks.find((c) => bankClockValue(c) === clock.value);
    return {
      variant: variant.value, match_length: Number(length.value),
      delay_seconds: timing.delay_seconds, bank_seconds_per_point: timing.bank_seconds_per_point,
    };
  }

  /** Wait in `pool` ({variant, match_length, delay_seconds, bank_seconds_per_point}): the card's, or a tile's. */
  async function join(pool) {
    const user = currentUser();
    if (!user || user.guest) {
      toast(t("matchmaking.sign_up"), "error");
      return;
    }
    try {
      await post("/api/matchmaking/join", {
        variant: pool.variant, match_length: pool.match_length,
        delay_seconds: pool.delay_seconds, bank_seconds_per_point: pool.bank_seconds_per_point,
      });
      looking = true;
      poll();
    } catch (error) {
      toast(errorText(error), "error");
    }
  }

  async function leave() {
    try { await post("/api/matchmaking/leave"); } catch (error) { toast(errorText(error), "error"); }
    poll();
  }

  async function answer(offer, verdict) {
    try { await post(`/api/matchmaking/offers/${offer.id}/${verdict}`); } catch (error) { toast(errorText(error), "error"); }
    poll();
  }

  async function poll() {
    clearTimeout(timer);
    const user = currentUser();
    if (!user || user.guest) { fill(status); return; }
    let state;
    try {
      state = await get("/api/matchmaking/status");
    } catch {
      timer = setTimeout(poll, POLL_MS);
      return;
    }
    if (state.status === "matched" && looking) {
      navigate(`#/table/${state.table}`);
      return;
    }
    looking = state.status === "waiting" || state.status === "offer";
    if (state.status === "matched") {
      fill(status, h("p", {}, t("matchmaking.playing"), " ",
        h("a", { href: `#/table/${state.table}`, class: "button", "data-action": "open-match" }, t("lobby.resume"))));
    } else if (state.status === "waiting") {
      fill(status, h("p", {}, t("matchmaking.waiting", { gap: state.allowed_gap })),
        h("button", { type: "button", "data-action": "leave-pool", onclick: leave }, t("matchmaking.cancel")));
    } else if (state.status === "offer") {
      const offer = state.offer;
      fill(status,
        h("p", {}, t("matchmaking.offer", {
          name: offer.opponent, rating: Math.round(offer.opponent_rating), gap: Math.round(offer.gap),
        })),
        offer.confirmed
          ? h("p", {}, t("matchmaking.confirmed"))
          : h("div", { class: "row" },
            h("button", { type: "button", class: "primary", "data-action": "confirm-offer",
              onclick: () => answer(offer, "confirm") }, t("matchmaking.confirm")),
            h("button", { type: "button", "data-action": "decline-offer",
              onclick: () => answer(offer, "decline") }, t("matchmaking.decline"))));
    } else {
      fill(status);
      return;
    }
    timer = setTimeout(poll, POLL_MS);
  }

  poll();
  return { el: card, join, status, stop: () => clearTimeout(timer) };
}
