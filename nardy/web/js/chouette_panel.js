// The chouette team channel: members talk and suggest (double, no double, take, pass, a play);
// the box and spectators never see it (the server sends `team` messages to the team only).
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { formatSteps } from "./names.js";

const MAX_TEXT = 200;
const KEEP = 100;

export function suggestName(suggest) {
  return {
    double: t("team.suggest_double"),
    no_double: t("team.suggest_no_double"),
    take: t("team.suggest_take"),
    pass: t("team.suggest_pass"),
    play: t("team.suggest_play_short"),
  }[suggest] ?? suggest;
}

export class TeamPanel {
  /**
   * send(fields) sends a team_say and resolves truthy when acknowledged; name(userId) names a player;
   * messages: the list to keep what was said in (the page's, so it outlives a redraw).
   */
  constructor({ send, name, messages }) {
    this.send = send;
    this.name = name;
    this.messages = messages || [];
    this.pending = [];
    this.list = h("ol", { class: "team-messages", "aria-live": "polite", "aria-label": t("team.messages") });
    this.input = h("input", { type: "text", name: "team_text", maxlength: String(MAX_TEXT), autocomplete: "off", placeholder: t("team.placeholder"), "aria-label": t("team.placeholder") });
    this.playButton = h("button", { type: "button", "data-suggest": "play", onclick: () => this.suggestPlay(), title: t("team.suggest_play_hint") }, t("team.suggest_play"));
    const quick = ["double", "no_double", "take", "pass"].map((s) => h("button", { type: "button", "data-suggest": s, onclick: () => this.say({ suggest: s }) }, suggestName(s)));
    this.el = h("section", { class: "team-panel", "aria-labelledby": "team-title", hidden: true },
      h("h2", { id: "team-title" }, t("team.title")),
      h("p", { class: "hint" }, t("team.hint")),
      this.list,
      h("form", {
        class: "row team-say",
        onsubmit: async (event) => {
          event.preventDefault();
          const text = this.input.value.trim();
          if (!text) return;
          if (await this.say({ text })) this.input.value = "";
        },
      }, this.input, h("button", { type: "submit", "data-action": "team-send" }, t("team.send"))),
      h("div", { class: "row team-quick" }, quick, this.playButton));
    this.renderList();
  }

  /** Show the panel to team members only; the play suggestion needs steps on the board. */
  update({ member, pending }) {
    this.el.hidden = !member;
    this.pending = pending || [];
    this.playButton.disabled = !this.pending.length;
  }

  async say(fields) {
    return this.send(fields);
  }

  suggestPlay() {
    if (!this.pending.length) return;
    this.say({ suggest: "play", steps: this.pending.map((s) => ({ source: s.source, target: s.target, die: s.die, hit: !!s.hit })) });
  }

  receive(message) {
    this.messages.push(message);
    if (this.messages.length > KEEP) this.messages.splice(0, this.messages.length - KEEP);
    this.renderList();
  }

  renderList() {
    if (!this.messages.length) {
      fill(this.list, h("li", { class: "hint empty" }, t("team.empty")));
      return;
    }
    fill(this.list, this.messages.map((m) => h("li", { class: "team-message", "data-from": String(m.from), "data-suggest": m.suggest || "" },
      h("b", {}, m.name || this.name(m.from)), ": ",
      m.text ? h("span", { class: "text" }, m.text) : null,
      m.suggest ? h("span", { class: "suggestion badge" }, t("team.suggests", { what: suggestName(m.suggest) })) : null,
      m.suggest === "play" && m.steps ? h("span", { class: "play", "data-play": formatSteps(m.steps) }, formatSteps(m.steps)) : null)));
    this.list.scrollTop = this.list.scrollHeight;
  }
}
