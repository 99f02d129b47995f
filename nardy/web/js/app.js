// The page: language, session, the header, toasts and hash routing.
//   #/                lobby          #/table/ID    game        #/replay/ID  replay
//   #/profile/NAME    profile        #/settings    settings    #/login      sign in
//   #/invite/TOKEN    join a private table by its invite link
//   #/ratings         leaderboards   #/chouette/ID a chouette table
//   #/chouette-replay/ID/N            replay of a chouette's finished game N (its dice number)
//   #/analysis        the analysis board: rate any position of any variant
//   #/imports         analyse a match file: upload one, the list of uploads   #/import/ID  an upload's replay
//   #/tournaments     tournaments        #/tournament/ID a tournament  #/tournament-protocol/ID its game protocol
//   #/statistics      the site's statistics: wins by colour per variant, the dice of every roll
//   #/account         the account: password, e-mail, data, deletion
//   #/moderation      the moderators' console: reports, a user's view (#/moderation/NAME), the audit log
//   #/verify-email/TOKEN, #/reset-password/TOKEN   the pages the mailed links open
import { h, fill } from "./dom.js";
import { setLanguage, t, translate, onLanguageChange } from "./i18n.js";
import { Socket } from "./socket.js";
import { currentUser, loadUser, onUserChange, setUser } from "./session.js";
import { post, errorText } from "./api.js";
import { getSettings, renderSettings } from "./settings.js";
import { followThemeSetting } from "./theme.js";
import { mountLobby, mountInvite } from "./lobby.js";
import { mountGame } from "./game.js";
import { mountChouette } from "./chouette.js";
import { mountReplay } from "./replay.js";
import { mountChouetteReplay } from "./chouette_replay.js";
import { mountProfile } from "./profile.js";
import { mountStatistics } from "./statistics.js";
import { mountLogin } from "./auth.js";
import { mountAccount, mountResetPassword, mountVerifyEmail } from "./account.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountAnalysisBoard } from "./analysis_board.js";
import { mountImports, mountImportReplay } from "./imports.js";
import { mountTournaments, mountTournament, mountTournamentProtocol } from "./tournaments.js";
import { loadVariants } from "./variants.js";
import { setupMenu } from "./menu.js";
import { mountModeration } from "./moderation.js";
import { registerServiceWorker, offerInstall } from "./pwa.js";
import { startTurnSignal } from "./turn_signal.js";

const view = document.getElementById("view");
const toasts = document.getElementById("toasts");
let unmount = () => {};
let socket = null;

export function toast(text, kind = "info") {
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
  toasts.append(el);
  setTimeout(() => el.remove(), kind === "error" ? 6000 : 3500);
}

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  unmount();
  unmount = () => {};
  const hash = location.hash.replace(/^#\/?/, "");
  const [page, ...rest] = hash.split("/");
  const arg = decodeURIComponent(rest.join("/"));
  const context = { socket, toast, navigate };
  document.body.dataset.page = page || "lobby";
  let result;
  if (page === "table" && arg) result = mountGame(view, arg, context);
  else if (page === "chouette" && arg) result = mountChouette(view, arg, context);
  else if (page === "replay" && arg) result = mountReplay(view, arg, context);
  else if (page === "chouette-replay" && arg) result = mountChouetteReplay(view, arg);
  else if (page === "profile" && arg) result = mountProfile(view, arg, context);
  else if (page === "settings") result = renderSettings(view);
  else if (page === "ratings") result = mountLeaderboard(view);
  else if (page === "statistics") result = mountStatistics(view);
  else if (page === "analysis") result = mountAnalysisBoard(view);
  else if (page === "imports") result = mountImports(view, context);
  else if (page === "import" && arg) result = mountImportReplay(view, arg);
  else if (page === "tournaments") result = mountTournaments(view, context);
  else if (page === "tournament" && arg) result = mountTournament(view, arg, context);
  else if (page === "tournament-protocol" && arg) result = mountTournamentProtocol(view, arg);
  else if (page === "login") result = mountLogin(view, context);
  else if (page === "account") result = mountAccount(view, context);
  else if (page === "verify-email" && arg) result = mountVerifyEmail(view, arg);
  else if (page === "reset-password" && arg) result = mountResetPassword(view, arg, context);
  else if (page === "invite" && arg) result = mountInvite(view, arg, context);
  else if (page === "moderation") result = mountModeration(view, arg, context);
  else if (page === "profile") {
    const user = currentUser();
    if (user) { navigate(`#/profile/${encodeURIComponent(user.username)}`); return; }
    navigate("#/login");
    return;
  } else result = mountLobby(view, context);
  if (typeof result === "function") unmount = result;
  view.focus({ preventScroll: true });
  updateNav();
}

function updateNav() {
  const user = currentUser();
  const account = document.getElementById("nav-account");
  fill(account, user
    ? [h("a", { href: `#/profile/${encodeURIComponent(user.username)}`, class: "user", "data-user": user.username },
      user.guest ? t("nav.guest", { name: user.username }) : user.username), accountMenu(user)]
    : [h("a", { href: "#/login" }, t("nav.login"))]);
  const page = document.body.dataset.page;
  // the match files are reached from the analysis board, and belong to the same section
  const section = page === "imports" || page === "import" ? "analysis" : page;
  for (const link of document.querySelectorAll("[data-nav]")) {
    link.classList.toggle("active", link.dataset.nav === section);
  }
}

// The account menu beside the player's name, on every page: their profile, their account, and logging out.
function accountMenu(user) {
  return h("details", { class: "account-menu", "data-account-menu": "" },
    h("summary", { "aria-label": t("nav.account_menu"), title: t("nav.account_menu") }, "▾"),
    h("div", { class: "account-menu-items" },
      h("a", { href: `#/profile/${encodeURIComponent(user.username)}`, "data-action": "menu-profile" }, t("nav.profile")),
      h("a", { href: "#/account", "data-action": "menu-account" }, t("nav.account")),
      user.moderator ? h("a", { href: "#/moderation", "data-action": "menu-moderation" }, t("mod.title")) : null,
      h("button", { type: "button", "data-action": "menu-logout", onclick: logOut }, t("auth.logout"))));
}

async function logOut() {
  try { await post("/api/logout"); } catch (error) { toast(errorText(error), "error"); }
  setUser(null);
  socket.reconnect();
  navigate("#/login");
}

function connectionBadge(connected) {
  const badge = document.getElementById("connection");
  badge.hidden = connected;
  badge.textContent = connected ? "" : t("common.reconnecting");
}

async function boot() {
  followThemeSetting();
  setupMenu();
  // the variants and clocks every page offers or draws come from the server, once (variants.js)
  const variantsLoaded = loadVariants();
  await setLanguage(getSettings().language);
  try { await variantsLoaded; } catch { toast(t("common.unreachable"), "error"); }
  try { await loadUser(); } catch { /* offline: continue as nobody */ }
  socket = new Socket();
  socket.onStatus(connectionBadge);
  setTimeout(() => connectionBadge(socket.connected), 2000);
  onUserChange(updateNav);
  onLanguageChange(() => { translate(document); route(); });
  window.addEventListener("hashchange", route);
  route();
  offerInstall(document.querySelector("header.topbar"));
  registerServiceWorker();
  window.nardy = { socket, version: 1, turns: startTurnSignal(socket) };
}

boot();
