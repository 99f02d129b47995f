// The invite tokens this tab was opened with, by table. A private table is shown only to its members and to
// whoever holds its invite (docs/protocol.md), so the socket's subscribe and the HTTP reads of such a table
// name the token. Kept for the tab's life (sessionStorage), so a reload still shows the table.
const KEY = "nardy.invites";

function tokens() {
  try { return JSON.parse(sessionStorage.getItem(KEY) || "{}"); } catch { return {}; }
}

export function rememberInvite(table, token) {
  try { sessionStorage.setItem(KEY, JSON.stringify({ ...tokens(), [table]: token })); } catch { /* storage off */ }
}

/** The invite token known for `table`, or null. */
export function inviteFor(table) {
  return tokens()[table] || null;
}

/** `path` with `invite=` added where it reads a table (`/api/tables/ID...`, `/api/chouettes/ID...`) whose
 * invite this tab holds. */
export function withInvite(path) {
  const match = path.match(/^\/api\/(?:tables|chouettes)\/([A-Za-z0-9_-]+)(?:[/.?]|$)/);
  const token = match ? inviteFor(match[1]) : null;
  if (!token) return path;
  return `${path}${path.includes("?") ? "&" : "?"}invite=${encodeURIComponent(token)}`;
}
