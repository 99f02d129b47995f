// Provably fair dice on a table page (docs/protocol.md, "Provably fair dice"): the seed hashes the
// server has committed to, the client seeds mixed in, and a form to set one's own client seed
// (the `client_seed` action). The match page and the chouette page share it.
//
// The box is built once per page and updated in place, so a new state keeps it open and keeps
// what the player is typing (and the focus) instead of drawing a new one.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";

const SHOWN = 16; // hex digits of a commitment shown; the whole of it is in the title and data-commitment

function digest(value) {
  return h("code", { title: value, "data-commitment": value }, `${value.slice(0, SHOWN)}…`);
}

export class SeedBox {
  /**
   * act(type, fields) sends an action and resolves truthy once it is acknowledged;
   * toast(text) shows a short note; hint: how this table's dice are made (defaults to the match's).
   */
  constructor({ act, toast, hint = null }) {
    this.input = h("input", { type: "text", name: "client_seed", maxlength: "64", autocomplete: "off", spellcheck: "false" });
    this.current = h("p", { class: "hint commitment", "data-current-commitment": "", hidden: true });
    this.next = h("p", { class: "hint commitment", "data-next-commitment": "", hidden: true });
    this.mine = h("p", { class: "hint my-seed", hidden: true });
    this.el = h("details", { class: "seed-box", hidden: true },
      h("summary", {}, t("game.fair_dice")),
      h("p", { class: "hint" }, hint || t("game.fair_dice_hint")),
      this.current, this.next, this.mine,
      h("form", {
        class: "row",
        onsubmit: async (event) => {
          event.preventDefault();
          const seed = this.input.value.trim();
          if (seed && await act("client_seed", { seed })) {
            this.input.value = "";
            toast(t("game.seed_set"));
          }
        },
      }, h("label", { class: "field" }, h("span", {}, t("lobby.dice_seed_label")), this.input),
      h("button", { type: "submit", "data-action": "set-seed" }, t("game.set_seed"))));
  }

  /**
   * Show the box (shown: the viewer plays at this table) with what the state says:
   * current {commitment, clientSeeds} of the game being played, next {label, commitment}
   * published for the next one, and mine, the viewer's client seed now.
   */
  update({ shown, current = null, next = null, mine = null }) {
    this.el.hidden = !shown;
    if (!shown) return;
    const seeds = current && (current.clientSeeds || []).filter((seed) => seed);
    const now = !!(current && current.commitment);
    this.current.hidden = !now;
    fill(this.current, now ? [t("game.commitment"), " ", digest(current.commitment),
      seeds.length ? [" ", t("game.client_seeds", { seeds: seeds.join(", ") })] : null] : null);
    const ahead = !!(next && next.commitment);
    this.next.hidden = !ahead;
    fill(this.next, ahead ? [next.label, " ", digest(next.commitment)] : null);
    this.mine.hidden = !mine;
    this.mine.dataset.clientSeed = mine || "";
    fill(this.mine, mine ? [t("game.your_seed"), " ", h("code", {}, mine)] : null);
  }
}
