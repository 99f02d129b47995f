// Reporting and blocking a player (docs/moderation.md): the report form, opened from the game page, the chat and
// the profile, and the block button of a profile. The server checks everything again; the reporter is told that
// the report was received.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, api, errorText } from "./api.js";

const CATEGORIES = () => [
  ["cheating", t("report.cheating")],
  ["abuse", t("report.abuse")],
  ["stalling", t("report.stalling")],
  ["other", t("report.other")],
];

/** A button opening the report form about `username` (at `table`, when given). */
export function reportButton(username, table, toast) {
  return h("button", {
    type: "button", class: "subtle", "data-report": username,
    onclick: () => openReport(username, table, toast),
  }, t("report.button"));
}

/** The report form in a modal dialog; sends it and says it was received, or why not. */
export function openReport(username, table, toast) {
  const category = h("select", { name: "category", "aria-label": t("report.category") },
    CATEGORIES().map(([value, label]) => h("option", { value }, label)));
  const text = h("textarea", { name: "text", maxlength: "1000", rows: "4", "aria-label": t("report.text"), placeholder: t("report.text") });
  const dialog = h("dialog", { class: "report-dialog", "data-report-dialog": "" });
  const close = () => { dialog.close(); dialog.remove(); };
  dialog.append(h("form", {
    class: "stack",
    onsubmit: async (event) => {
      event.preventDefault();
      try {
        await post("/api/reports", { username, category: category.value, text: text.value, table: table || null });
        toast(t("report.received"));
        close();
      } catch (error) {
        toast(t("error.refused", { message: errorText(error) }), "error");
      }
    },
  },
  h("h2", {}, t("report.title", { name: username })),
  h("label", {}, t("report.category"), " ", category),
  text,
  h("div", { class: "row" },
    h("button", { type: "submit", "data-action": "report-send" }, t("report.send")),
    h("button", { type: "button", class: "subtle", onclick: close }, t("report.cancel")))));
  document.body.append(dialog);
  dialog.showModal();
}

/** The block / unblock button of `username`'s profile, showing whether the signed-in player blocks them. */
export function blockButton(username, toast) {
  const button = h("button", { type: "button", class: "subtle", "data-block": username });
  let blocked = false;
  const show = () => {
    button.textContent = blocked ? t("block.unblock") : t("block.block");
    button.title = blocked ? t("block.blocked", { name: username }) : "";
    button.setAttribute("aria-pressed", blocked ? "true" : "false");
  };
  const sameName = (name) => name.toLowerCase() === username.toLowerCase();
  button.addEventListener("click", async () => {
    try {
      const answer = blocked
        ? await api("DELETE", `/api/me/blocks/${encodeURIComponent(username)}`)
        : await post("/api/me/blocks", { username });
      blocked = answer.blocked.some(sameName);
      show();
    } catch (error) {
      toast(t("error.refused", { message: errorText(error) }), "error");
    }
  });
  show();
  get("/api/me/blocks").then((answer) => { blocked = answer.blocked.some(sameName); show(); }, () => {});
  return button;
}
