// Who is signed in (an account, a guest, or nobody), shared by every page.
import { get, post } from "./api.js";

let user = null;
const listeners = new Set();

export function currentUser() { return user; }

export function setUser(next) {
  user = next;
  for (const fn of listeners) fn(user);
}

export function onUserChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Ask the server who we are (a visitor: no user, answered without an error). */
export async function loadUser() {
  setUser((await get("/api/session")).user);
  return user;
}

/** The signed-in user, continuing as a guest when nobody is. */
export async function ensureUser() {
  if (user) return user;
  setUser((await post("/api/guest")).user);
  return user;
}

/** ensureUser, then reconnect `socket` if a guest was just made, so the server knows who acts on it. */
export async function ensureSignedIn(socket) {
  const had = !!user;
  await ensureUser();
  if (!had && socket) socket.reconnect();
  return user;
}
