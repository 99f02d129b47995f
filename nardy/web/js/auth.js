// Sign in (#/login): log in (or ask for a reset link), sign up (a guest keeps its games), or continue as a guest.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { post, errorText } from "./api.js";
import { currentUser, setUser } from "./session.js";
import { forgotPassword } from "./account.js";

export function mountLogin(view, { socket, toast, navigate }) {
  const done = (user) => {
    setUser(user);
    socket.reconnect();
    navigate("#/");
  };
  const form = (kind) => {
    const username = h("input", { name: "username", autocomplete: "username", required: true, maxlength: "64" });
    const password = h("input", { name: "password", type: "password", required: true, maxlength: "1024",
      autocomplete: kind === "login" ? "current-password" : "new-password" });
    const error = h("p", { class: "error", role: "alert" });
    return h("form", {
      class: "card auth", "data-form": kind, "aria-labelledby": `${kind}-title`,
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        try {
          const reply = await post(kind === "login" ? "/api/login" : "/api/signup", { username: username.value, password: password.value });
          done(reply.user);
        } catch (e) {
          error.textContent = errorText(e);
        }
      },
    },
    h("h2", { id: `${kind}-title` }, kind === "login" ? t("auth.login") : t("auth.signup")),
    kind === "signup" && currentUser() && currentUser().guest ? h("p", { class: "hint" }, t("auth.upgrade_hint")) : null,
    h("label", { class: "field" }, h("span", {}, t("auth.username")), username),
    h("label", { class: "field" }, h("span", {}, t("auth.password")), password),
    kind === "signup" ? h("small", { class: "hint" }, t("auth.password_hint")) : null,
    error,
    h("button", { type: "submit", class: "primary" }, kind === "login" ? t("auth.login") : t("auth.signup")));
  };
  const loginColumn = () => h("div", { class: "login-column" }, form("login"), forgotPassword());
  const user = currentUser();
  fill(view, h("section", { class: "page login" },
    h("h1", {}, t("auth.title")),
    user ? h("p", {}, t("auth.signed_in_as", { name: user.username })) : null,
    h("div", { class: "auth-grid" },
      user && !user.guest ? null : loginColumn(),
      user && !user.guest ? null : form("signup"),
      h("div", { class: "card auth" },
        h("h2", {}, t("auth.guest")),
        h("p", { class: "hint" }, t("auth.guest_hint")),
        user
          ? h("button", { type: "button", "data-action": "logout", onclick: async () => {
            try { await post("/api/logout"); } catch (e) { toast(errorText(e), "error"); }
            setUser(null);
            socket.reconnect();
            navigate("#/login");
          } }, t("auth.logout"))
          : h("button", { type: "button", class: "primary", "data-action": "guest", onclick: async () => {
            try { done((await post("/api/guest")).user); } catch (e) { toast(errorText(e), "error"); }
          } }, t("auth.continue_guest"))))));
  return () => {};
}
