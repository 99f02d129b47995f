// "Your turn" while the page is hidden: the tab's title says so, a short chime plays (Settings: turnSound) and,
// where the player allowed it (Settings: turnNotify, off by default, and the browser's permission), a
// notification appears. It follows every table the player has open (GET /api/me/tables: correspondence games
// included), not only the one on screen, over the page's WebSocket; a table that appears meanwhile (a
// tournament round starting, a pairing found) is signalled the same way. Nothing is signalled while the page
// is seen: the page itself shows it.
import { get } from "./api.js";
import { t } from "./i18n.js";
import { currentUser, onUserChange } from "./session.js";
import { getSettings } from "./settings.js";
import { notificationsAvailable } from "./notifications.js";
import { playSound } from "./sound.js";

const REFRESH_MS = 30000;
const MARK = "● ";

export function startTurnSignal(socket) {
  const tables = new Map(); // id -> {unwatch, myTurn, seen}
  let known = null; // the table ids of the last refresh (null before the first)
  let plainTitle = null;

  const hidden = () => document.visibilityState === "hidden";

  function mySeat(state) {
    const user = currentUser();
    if (!user || !state || !state.seats) return -1;
    return state.seats.findIndex((seat) => seat && seat.user_id === user.id);
  }

  function follow(id) {
    if (tables.has(id)) return;
    const entry = { unwatch: null, myTurn: false, seen: false };
    tables.set(id, entry);
    entry.unwatch = socket.watch(id, (update) => {
      if (!update.state) return;
      const state = update.state;
      const seat = mySeat(state);
      const myTurn = seat >= 0 && state.status === "playing" && state.actor === seat;
      if (myTurn && !entry.myTurn && entry.seen) signal(t("notify.your_turn"), namesOf(state), id);
      entry.myTurn = myTurn;
      entry.seen = true;
    });
  }

  function drop(id) {
    const entry = tables.get(id);
    if (entry) entry.unwatch();
    tables.delete(id);
  }

  function namesOf(state) {
    return (state.seats || []).map((seat) => (seat ? seat.name : "…")).join(" – ");
  }

  async function refresh() {
    if (!currentUser()) {
      for (const id of [...tables.keys()]) drop(id);
      known = null;
      return;
    }
    let answer;
    try { answer = await get("/api/me/tables"); } catch { return; }
    const open = answer.tables.filter((table) => table.kind !== "chouette");
    const ids = new Set(open.map((table) => table.table));
    for (const id of [...tables.keys()]) if (!ids.has(id)) drop(id);
    for (const table of open) {
      if (known && !known.has(table.table)) {
        signal(t("notify.new_table"), (table.players || []).map((name) => name || "…").join(" – "), table.table);
      }
      follow(table.table);
    }
    known = ids;
  }

  /** Say it: only while the page is hidden; the title until the page is seen again. */
  function signal(title, body, table) {
    if (!hidden()) return;
    if (plainTitle === null) plainTitle = document.title;
    document.title = `${MARK}${title} — ${plainTitle}`;
    const settings = getSettings();
    if (settings.turnSound) playSound("turn");
    if (settings.turnNotify && notificationsAvailable() && Notification.permission === "granted") notify(title, body, table);
  }

  function notify(title, body, table) {
    const options = { body, icon: "img/icon-192.png", badge: "img/icon-192.png", tag: `nardy-${table}`, data: { url: `#/table/${table}` } };
    try {
      const note = new Notification(title, options);
      note.onclick = () => { window.focus(); location.hash = `#/table/${table}`; note.close(); };
    } catch {
      // where pages may not construct notifications (Android), the service worker shows them
      if (navigator.serviceWorker) navigator.serviceWorker.ready.then((registration) => registration.showNotification(title, options)).catch(() => {});
    }
  }

  document.addEventListener("visibilitychange", () => {
    if (!hidden() && plainTitle !== null) {
      document.title = plainTitle;
      plainTitle = null;
    }
    if (hidden()) refresh();
  });
  window.addEventListener("hashchange", refresh);
  onUserChange(refresh);
  setInterval(refresh, REFRESH_MS);
  refresh();
  return { refresh, watching: () => [...tables.keys()] };
}
