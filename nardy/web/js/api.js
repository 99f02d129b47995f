// The HTTP API: JSON in and out, with the CSRF header on every state-changing request, and a private table's
// invite on the reads of a table this tab was invited to.
import { withInvite } from "./invites.js";

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
    this.detail = detail;
  }
}

/** The readable CSRF cookie set at sign-in (nardy_csrf). */
export function csrfToken() {
  for (const part of document.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === "nardy_csrf") return decodeURIComponent(rest.join("="));
  }
  return null;
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET" && method !== "HEAD") {
    const token = csrfToken();
    if (token) headers["X-CSRF-Token"] = token;
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body ?? {});
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!response.ok) {
    const detail = data && typeof data === "object" && "detail" in data ? data.detail : data;
    throw new ApiError(response.status, detail ?? response.statusText);
  }
  return data;
}

export const get = (path) => api("GET", withInvite(path));
export const post = (path, body) => api("POST", path, body);
export const patch = (path, body) => api("PATCH", path, body);

/** A short message for an API error (validation errors from the server come as a list). */
export function errorText(error) {
  if (error instanceof ApiError) {
    const d = error.detail;
    if (Array.isArray(d)) return d.map((item) => item.msg || JSON.stringify(item)).join("; ");
    return typeof d === "string" ? d : JSON.stringify(d);
  }
  return String(error && error.message ? error.message : error);
}
