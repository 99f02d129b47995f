// The account's own page (#/account): a new password, the e-mail address, the data download and deletion;
// and the pages the mailed links open: #/verify-email/TOKEN and #/reset-password/TOKEN.
import { h, fill } from "./dom.js";
import { currentLanguage, t } from "./i18n.js";
import { get, post, errorText } from "./api.js";
import { setUser } from "./session.js";

// A card with a form: its title (none where the page's heading says it), its fields, a submit button, and a line
// for the answer (an error, or what was done).
function formCard(title, { name, fields, submit, hint, danger = false, onsubmit }) {
  const note = h("p", { class: "hint", role: "status" });
  const form = h("form", {
    class: "card auth", "data-form": name,
    onsubmit: async (event) => {
      event.preventDefault();
      note.textContent = "";
      note.classList.remove("error");
      try {
        note.textContent = (await onsubmit()) || "";
      } catch (e) {
        note.classList.add("error");
        note.textContent = errorText(e);
      }
    },
  },
  title ? h("h2", {}, title) : null,
  hint ? h("p", { class: "hint" }, hint) : null,
  ...fields.map(([label, input]) => h("label", { class: "field" }, h("span", {}, label), input)),
  note,
  h("button", { type: "submit", class: danger ? "danger" : "primary" }, submit));
  return form;
}

function passwordInput(name, autocomplete) {
  return h("input", { name, type: "password", required: true, maxlength: "1024", autocomplete });
}

function emailStatus(account) {
  if (!account.email) return t("account.email_none");
  return account.email_verified
    ? t("account.email_verified", { email: account.email })
    : t("account.email_unverified", { email: account.email });
}

export function mountAccount(view, { socket, navigate }) {
  fill(view, h("section", { class: "page account" }, h("h1", {}, t("account.title")), h("p", {}, t("common.loading"))));
  get("/api/account").then((account) => {
    const download = h("a", { class: "button", href: "/api/account/export", download: "", "data-action": "download" },
      t("account.download"));
    const dataCard = h("div", { class: "card auth" }, h("h2", {}, t("account.data_title")), download);
    if (account.guest) {
      fill(view, h("section", { class: "page account" },
        h("h1", {}, t("account.title")), h("p", { class: "hint" }, t("account.guest")), dataCard));
      return;
    }
    const current = passwordInput("current_password", "current-password");
    const fresh = passwordInput("new_password", "new-password");
    const passwordCard = formCard(t("account.password_title"), {
      name: "password", submit: t("account.password_title"),
      fields: [[t("account.current_password"), current], [t("account.new_password"), fresh]],
      onsubmit: async () => {
        await post("/api/account/password", { current_password: current.value, new_password: fresh.value });
        current.value = fresh.value = "";
        return t("account.password_changed");
      },
    });
    const status = h("p", { "data-email-status": "" }, emailStatus(account));
    const email = h("input", { name: "email", type: "email", maxlength: "254", autocomplete: "email",
      value: account.email || "" });
    const emailPassword = passwordInput("password", "current-password");
    const emailCard = account.mail_available
      ? formCard(t("account.email_title"), {
        name: "email", submit: t("account.email_save"), hint: t("account.email_hint"),
        fields: [[t("account.email"), email], [t("auth.password"), emailPassword]],
        onsubmit: async () => {
          const changed = await post("/api/account/email", { email: email.value.trim() || null, password: emailPassword.value, language: currentLanguage() });
          emailPassword.value = "";
          status.textContent = emailStatus(changed);
          return changed.email && !changed.email_verified ? t("account.email_sent") : "";
        },
      })
      : h("div", { class: "card auth" }, h("h2", {}, t("account.email_title")), h("p", { class: "hint" }, t("account.mail_unavailable")));
    emailCard.insertBefore(status, emailCard.children[1]);
    const deletePassword = passwordInput("password", "current-password");
    const deleteCard = formCard(t("account.delete_title"), {
      name: "delete", submit: t("account.delete_confirm"), hint: t("account.delete_hint"), danger: true,
      fields: [[t("auth.password"), deletePassword]],
      onsubmit: async () => {
        await post("/api/account/delete", { password: deletePassword.value });
        setUser(null);
        socket.reconnect();
        navigate("#/login");
        return t("account.deleted");
      },
    });
    fill(view, h("section", { class: "page account" },
      h("h1", {}, t("account.title")),
      h("div", { class: "auth-grid" }, passwordCard, emailCard, dataCard, deleteCard)));
  }).catch((e) => fill(view, h("section", { class: "page account" },
    h("h1", {}, t("account.title")), h("p", { class: "error", role: "alert" }, errorText(e)))));
  return () => {};
}

export function mountVerifyEmail(view, token) {
  const result = h("p", { role: "status" }, t("common.loading"));
  fill(view, h("section", { class: "page account" }, h("h1", {}, t("account.verify_title")), result));
  post("/api/account/email/verify", { token })
    .then(() => { result.textContent = t("account.verified"); })
    .catch((e) => { result.classList.add("error"); result.textContent = errorText(e); });
  return () => {};
}

export function mountResetPassword(view, token, { socket, navigate }) {
  const password = passwordInput("password", "new-password");
  fill(view, h("section", { class: "page account" },
    h("h1", {}, t("auth.reset_title")),
    h("div", { class: "auth-grid" }, formCard(null, {
      name: "reset", submit: t("auth.reset_save"), hint: t("auth.password_hint"),
      fields: [[t("account.new_password"), password]],
      onsubmit: async () => {
        const reply = await post("/api/password-reset/confirm", { token, password: password.value });
        setUser(reply.user);
        socket.reconnect();
        navigate("#/");
        return "";
      },
    }))));
  return () => {};
}

// "Forgot your password?" under the login form: asks for a reset link by username or e-mail address.
export function forgotPassword() {
  const account = h("input", { name: "account", required: true, maxlength: "254", autocomplete: "username" });
  return h("details", { class: "forgot-password", "data-forgot": "" },
    h("summary", {}, t("auth.forgot")),
    formCard(null, {
      name: "forgot", submit: t("auth.forgot_send"), hint: t("auth.forgot_hint"),
      fields: [[t("auth.forgot_account"), account]],
      onsubmit: async () => {
        await post("/api/password-reset", { account: account.value.trim(), language: currentLanguage() });
        return t("auth.forgot_sent");
      },
    }));
}
