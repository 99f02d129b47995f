// The WebSocket: one connection for the page, following tables by version.
//
// For each watched table we keep the last version and state (docs/protocol.md,
// "Versions, events and resync"). A `sync` replaces them; an `events` message is
// applied when it starts at the next version we expect (if it overlaps what we
// have, only its newer events are applied); one that brings the view as the
// changes since from_version - 1 is applied only on that version; a duplicate is
// ignored; a message that starts further on is a gap, and we resubscribe with since=<known version>
// so the server sends what we missed. Events that arrive before the first answer
// to a subscribe are held until it comes. The connection reconnects with backoff
// and resubscribes the same way, so a page never misses an event or applies one twice.
//
// Close code 4001 means the login session ended (logged out in another tab or
// expired): the page asks again who is signed in and reconnects at once, as a
// visitor. Only one such quick reconnect is made per SIGNED_OUT_CALM_MS; a
// second 4001 sooner waits the usual backoff, so a server that keeps saying
// it cannot make the page loop.
import { loadUser } from "./session.js";
import { inviteFor } from "./invites.js";

const PING_MS = 20000;
const ACTION_TIMEOUT_MS = 15000;
const SIGNED_OUT = 4001;
const SIGNED_OUT_CALM_MS = 10000;

/**
 * The view `state` after an `events` message's `changes` (docs/protocol.md, "Versions, events and
 * resync"): each change is [key, value] or [key, sub, value]. A new object; `state` stays as it was,
 * so listeners may compare the view before and after.
 */
export function applyChanges(state, changes) {
  const result = { ...state };
  for (const change of changes) {
    if (change.length === 2) result[change[0]] = change[1];
    else result[change[0]] = { ...result[change[0]], [change[1]]: change[2] };
  }
  return result;
}

export class ActionRefused extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Socket {
  constructor(url) {
    this.url = url || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.tables = new Map(); // id -> {version, state, listeners: Set}
    this.pending = new Map(); // action_id -> {resolve, reject, timer}
    this.statusListeners = new Set();
    this.user = undefined;
    this.backoff = 500;
    this.counter = 0;
    this.ws = null;
    this.connected = false;
    this.closedByUs = false;
    this.signedOutAt = -Infinity;
    this.connect();
    this.pinger = setInterval(() => this.send({ t: "ping" }), PING_MS);
  }

  connect() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 500;
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      this.receive(message);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.setConnected(false);
      for (const [id, entry] of this.pending) {
        clearTimeout(entry.timer);
        entry.reject(new ActionRefused("disconnected", "connection lost"));
        this.pending.delete(id);
      }
      if (this.closedByUs) return;
      let delay = this.backoff + Math.random() * 250;
      this.backoff = Math.min(this.backoff * 2, 10000);
      if (event.code === SIGNED_OUT) {
        this.user = null;
        loadUser().catch(() => { /* offline: the next hello says who we are */ });
        const now = Date.now();
        if (now - this.signedOutAt >= SIGNED_OUT_CALM_MS) delay = 0;
        this.signedOutAt = now;
      }
      this.retry = setTimeout(() => this.connect(), delay);
    };
  }

  /** Reconnect now (e.g. after signing in, so the server knows who we are). */
  reconnect() {
    clearTimeout(this.retry);
    const old = this.ws;
    this.ws = null;
    if (old) {
      old.onclose = null;
      try { old.close(); } catch { /* already closed */ }
    }
    this.setConnected(false);
    this.connect();
  }

  setConnected(value) {
    if (this.connected === value) return;
    this.connected = value;
    for (const fn of this.statusListeners) fn(value);
  }

  onStatus(fn) {
    this.statusListeners.add(fn);
    return () => this.statusListeners.delete(fn);
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  subscribe(id) {
    const entry = this.tables.get(id);
    const message = { t: "subscribe", table: id };
    if (entry && entry.version !== null) message.since = entry.version;
    const invite = inviteFor(id); // a private table is watched without a seat with its invite
    if (invite) message.invite = invite;
    this.send(message);
  }

  /** Follow table id; listener(update) gets {kind: "sync"|"events"|"error"|"team"|"chat", state, events, message}. */
  watch(id, listener) {
    let entry = this.tables.get(id);
    if (!entry) {
      entry = { version: null, state: null, listeners: new Set() };
      this.tables.set(id, entry);
    }
    entry.listeners.add(listener);
    if (entry.listeners.size === 1) this.subscribe(id);
    else if (entry.state) listener({ kind: "sync", state: entry.state, events: [] });
    return () => {
      entry.listeners.delete(listener);
      if (entry.listeners.size === 0) {
        this.tables.delete(id);
        this.send({ t: "unsubscribe", table: id });
      }
    };
  }

  known(id) {
    const entry = this.tables.get(id);
    return entry ? entry.version : null;
  }

  receive(message) {
    const kind = message.t;
    if (kind === "hello") {
      this.user = message.user;
      this.setConnected(true);
      for (const id of this.tables.keys()) this.subscribe(id);
      return;
    }
    if (kind === "ack" || (kind === "error" && message.action_id)) {
      const waiting = this.pending.get(message.action_id);
      if (!waiting) return;
      this.pending.delete(message.action_id);
      clearTimeout(waiting.timer);
      if (kind === "ack") waiting.resolve(message);
      else waiting.reject(new ActionRefused(message.code, message.message));
      return;
    }
    const entry = message.table ? this.tables.get(message.table) : null;
    if (!entry) return;
    if (kind === "sync") {
      if (entry.version !== null && message.version < entry.version) return;
      entry.version = message.version;
      entry.state = message.state;
      this.notify(entry, { kind: "sync", state: message.state, events: [] });
      const early = entry.early || [];
      entry.early = [];
      for (const held of early) this.receive(held);
    } else if (kind === "events") {
      if (entry.version === null) {
        // live events may overtake the answer to our subscribe: keep them until it comes
        (entry.early = entry.early || []).push(message);
        return;
      }
      if (message.version <= entry.version) return; // a duplicate: nothing new
      if (message.from_version > entry.version + 1) {
        this.subscribe(message.table); // a gap: ask for what we missed
        return;
      }
      let state = message.state;
      if (message.changes) {
        // the parts of the view that changed since from_version - 1: only that view can take them
        if (message.from_version !== entry.version + 1) {
          this.subscribe(message.table);
          return;
        }
        state = applyChanges(entry.state, message.changes);
      }
      // from_version is the next version we expect (or overlaps what we have: keep only the new events)
      const fresh = message.events.filter((e) => e.version > entry.version);
      entry.version = message.version;
      entry.state = state;
      this.notify(entry, { kind: "events", state, events: fresh });
    } else if (kind === "error") {
      this.notify(entry, { kind: "error", state: entry.state, events: [], message });
    } else if (kind === "team") {
      // a chouette's team channel: said to the team, never part of the table's versions
      this.notify(entry, { kind: "team", state: entry.state, events: [], message });
    } else if (kind === "chat") {
      // a two-seat table's chat (live, or the history after a subscribe): never part of the table's versions
      this.notify(entry, { kind: "chat", state: entry.state, events: [], message });
    }
  }

  notify(entry, update) {
    for (const fn of [...entry.listeners]) fn(update);
  }

  /** Send an action; resolves with the ack, rejects with ActionRefused. */
  act(table, t, fields = {}) {
    this.counter += 1;
    const actionId = `c${Date.now().toString(36)}-${this.counter}-${Math.floor(Math.random() * 1e6).toString(36)}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(actionId);
        reject(new ActionRefused("timeout", "no answer from the server"));
      }, ACTION_TIMEOUT_MS);
      this.pending.set(actionId, { resolve, reject, timer });
      if (!this.send({ t, table, action_id: actionId, ...fields })) {
        clearTimeout(timer);
        this.pending.delete(actionId);
        reject(new ActionRefused("disconnected", "not connected"));
      }
    });
  }
}
