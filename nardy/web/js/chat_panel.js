// The chat of a two-seat table (docs/protocol.md, "Chat"): the two players write free text or quick
// phrases; spectators read it at unrated tables, and at rated ones while both players allow it.
//
// The panel follows the table itself (socket.watch): `chat` updates bring messages (live, or the
// history after each subscribe), the state brings who may read. Messages become text nodes, never
// markup; a quick phrase comes as its id and is shown in the reader's language. Muting is this
// browser's own: the muted user ids are kept in localStorage, and their messages are not shown.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { get } from "./api.js";
import { currentUser, onUserChange } from "./session.js";
import { seatName } from "./names.js";
import { reportButton } from "./report.js";

const MAX_TEXT = 200; // the server's default limit (it refuses longer messages whatever this says)
const KEEP = 300;
const MUTED_KEY = "nardy.chat.muted";
export const PHRASES = ["hello", "good_luck", "well_played", "thanks", "must_go"];

/** A quick phrase in the reader's language. */
export function phraseText(id) {
  return {
    hello: t("chat.phrase_hello"),
    good_luck: t("chat.phrase_good_luck"),
    well_played: t("chat.phrase_well_played"),
    thanks: t("chat.phrase_thanks"),
    must_go: t("chat.phrase_must_go"),
  }[id] ?? id;
}

/** The user ids this browser has muted. */
export function mutedUsers() {
  try {
    const stored = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(stored) ? stored.filter(Number.isInteger) : []);
  } catch {
    return new Set();
  }
}

function setMuted(userId, muted) {
  const users = mutedUsers();
  if (muted) users.add(userId);
  else users.delete(userId);
  localStorage.setItem(MUTED_KEY, JSON.stringify([...users]));
}

export class ChatPanel {
  /** socket: the page's Socket; tableId: the table; toast(text, kind): tells the user about a refusal. */
  constructor({ socket, tableId, toast }) {
    this.socket = socket;
    this.tableId = tableId;
    this.toast = toast;
    this.state = null;
    this.messages = new Map(); // id -> message
    this.readable = null;
    this.list = h("ol", { class: "chat-messages", "aria-live": "polite", "aria-label": t("chat.messages") });
    this.note = h("p", { class: "hint chat-note" });
    this.mutes = h("div", { class: "row chat-mutes" });
    this.input = h("input", {
      type: "text", name: "chat_text", maxlength: String(MAX_TEXT), autocomplete: "off",
      placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"),
    });
    this.form = h("form", {
      class: "row chat-say",
      onsubmit: async (event) => {
        event.preventDefault();
        const text = this.input.value.trim();
        if (text && await this.say({ text })) this.input.value = "";
      },
    }, this.input, h("button", { type: "submit", "data-action": "chat-send" }, t("chat.send")));
    this.quick = h("div", { class: "row chat-quick", role: "group", "aria-label": t("chat.phrases") },
      PHRASES.map((id) => h("button", { type: "button", "data-phrase": id, onclick: () => this.say({ phrase: id }) }, phraseText(id))));
    this.allowBox = h("input", { type: "checkbox", name: "chat_spectators", onchange: (e) => this.allowSpectators(e.target.checked) });
    this.allow = h("label", { class: "toggle chat-spectators" }, this.allowBox, h("span", {}, t("chat.allow_spectators")));
    this.el = h("section", { class: "chat-panel", "aria-labelledby": "chat-title", hidden: true },
      h("h2", { id: "chat-title" }, t("chat.title")),
      this.note, this.list, this.mutes, this.form, this.quick, this.allow);
    this.unwatch = socket.watch(tableId, (update) => this.update(update));
    this.unuser = onUserChange(() => this.follow());
  }

  destroy() {
    this.unwatch();
    this.unuser();
  }

  mySeat() {
    const user = currentUser();
    if (!user || !this.state) return null;
    const index = this.state.seats.findIndex((s) => s && s.user_id === user.id);
    return index >= 0 ? index : null;
  }

  update(update) {
    if (update.kind === "chat") {
      this.add(update.message.messages);
      return;
    }
    if (!update.state || !update.state.chat) return;
    this.state = update.state;
    this.follow();
  }

  /** Keep up with whether this reader may read: fetch the history when the chat opens to them, forget it when it closes. */
  follow() {
    if (!this.state) return;
    const readable = this.mySeat() !== null || this.state.chat.public;
    if (readable && this.readable === false) this.loadHistory(); // e.g. a rated chat just opened to spectators
    if (!readable) this.messages.clear();
    this.readable = readable;
    this.render();
  }

  add(messages) {
    for (const message of messages) this.messages.set(message.id, message);
    const ids = [...this.messages.keys()].sort((a, b) => a - b);
    for (const id of ids.slice(0, Math.max(0, ids.length - KEEP))) this.messages.delete(id);
    this.renderList();
  }

  async loadHistory() {
    try {
      const chat = await get(`/api/tables/${encodeURIComponent(this.tableId)}/chat`);
      this.add(chat.messages);
    } catch {
      /* no longer readable: the next state says so */
    }
  }

  async say(fields) {
    try {
      await this.socket.act(this.tableId, "say", fields);
      return true;
    } catch (error) {
      this.toast(error.code === "chat_rate_limited" ? t("chat.too_fast") : t("error.refused", { message: error.message || String(error) }), "error");
      return false;
    }
  }

  async allowSpectators(allow) {
    try {
      await this.socket.act(this.tableId, "chat_spectators", { allow });
    } catch (error) {
      this.toast(t("error.refused", { message: error.message || String(error) }), "error");
      this.render();
    }
  }

  render() {
    const s = this.state;
    if (!s) return;
    const me = this.mySeat();
    this.el.hidden = s.seats.some((seat) => seat && seat.bot); // nobody to talk to at the computer's table
    this.list.hidden = !this.readable;
    this.mutes.hidden = !this.readable;
    this.form.hidden = me === null;
    this.quick.hidden = me === null;
    this.allow.hidden = me === null || !s.rated;
    this.allowBox.checked = me !== null && !!s.chat.spectators[me];
    let note;
    if (!s.rated) note = t("chat.spectators_read");
    else if (me === null) note = s.chat.public ? t("chat.spectators_allowed") : t("chat.players_only");
    else note = s.chat.public ? t("chat.spectators_allowed") : t("chat.spectators_need_both");
    fill(this.note, note);
    const muted = mutedUsers();
    fill(this.mutes, s.seats.map((seat, index) => {
      if (!seat || seat.bot || seat.user_id === null || index === me) return null;
      const on = muted.has(seat.user_id);
      return [h("button", {
        type: "button", class: "subtle", "data-mute": String(seat.user_id), "aria-pressed": on ? "true" : "false",
        onclick: () => { setMuted(seat.user_id, !on); this.render(); },
      }, on ? t("chat.unmute", { name: seatName(seat) }) : t("chat.mute", { name: seatName(seat) })),
      me !== null ? reportButton(seat.name, this.tableId, this.toast) : null];
    }));
    this.renderList();
  }

  renderList() {
    const muted = mutedUsers();
    const all = [...this.messages.values()].sort((a, b) => a.id - b.id);
    const shown = all.filter((m) => !muted.has(m.user_id));
    const items = shown.map((m) => h("li",
      { class: "chat-message", "data-id": String(m.id), "data-from": String(m.user_id), "data-phrase": m.phrase || "" },
      h("b", { class: "name" }, m.name), ": ",
      h("span", { class: m.phrase ? "text phrase" : "text" }, m.phrase ? phraseText(m.phrase) : m.text)));
    if (!all.length) items.push(h("li", { class: "hint empty" }, t("chat.empty")));
    if (all.length > shown.length) items.push(h("li", { class: "hint muted-count" }, t("chat.hidden", { n: all.length - shown.length })));
    fill(this.list, items);
    this.list.scrollTop = this.list.scrollHeight;
  }
}
