// Match files (#/imports): upload a match played elsewhere (a Jellyfish or gnubg .mat file, SGF, or a nardy
// record) to have the server analyse it, and the list of one's uploads with their analyses' progress.
// #/import/ID replays an upload in the replay viewer, with its analysis beside the board.
import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api, get, post, errorText } from "./api.js";
import { currentUser } from "./session.js";
import { variantName, matchLengthName, formatDate } from "./names.js";
import { matchFileLinks } from "./variants.js";
import { mountViewer } from "./replay.js";

const ACCEPT = ".mat,.txt,.sgf,.json";
const MAX_CHARS = 1000000;  // the most characters of a file the server reads
const MAX_NAME = 120;  // the longest name the server keeps
const POLL_MS = 2000;

/** A player's name as the file gives it; a file may leave it out. */
const playerName = (name, seat) => name || t("game.player_n", { n: seat + 1 });

export function mountImports(view, { toast, navigate }) {
  const page = h("section", { class: "page imports" }, h("h1", {}, t("imports.title")),
    h("p", { class: "hint" }, t("imports.hint")));
  fill(view, page);
  if (!currentUser()) {
    page.append(h("p", { class: "card" }, h("a", { href: "#/login", "data-action": "sign-in" }, t("imports.sign_in"))));
    return () => {};
  }
  const list = h("div", { class: "table-list", id: "imports" }, h("p", { class: "hint" }, t("common.loading")));
  page.append(uploadForm(navigate), h("section", { class: "card" }, h("h2", {}, t("imports.mine")), list));
  let timer = null;
  let mounted = true;

  // the list, again every few seconds while an analysis is still to finish
  async function refresh() {
    try {
      const { imports } = await get("/api/imports");
      if (!mounted) return;
      fill(list, imports.length ? imports.map(row) : h("p", { class: "hint" }, t("imports.none")));
      clearTimeout(timer);
      if (imports.some((item) => item.analysis.status === "queued" || item.analysis.status === "running")) {
        timer = setTimeout(refresh, POLL_MS);
      }
    } catch (error) {
      if (mounted) fill(list, h("p", { class: "error" }, errorText(error)));
    }
  }

  function row(item) {
    const href = `#/import/${encodeURIComponent(item.id)}`;
    return h("div", { class: "table-row", "data-import": item.id, "data-status": item.analysis.status },
      h("a", { href, class: "variant" }, item.name),
      h("span", {}, variantName(item.variant)),
      h("span", {}, matchLengthName(item.match_length)),
      h("span", { class: "players" }, item.players.map(playerName).join(" – ")),
      h("span", { class: "hint" }, formatDate(item.created_at)),
      h("span", { class: "import-status" }, statusText(item.analysis)),
      h("button", { type: "button", "data-action": "delete-import", onclick: () => remove(item) }, t("imports.delete")));
  }

  async function remove(item) {
    if (!window.confirm(t("imports.delete_confirm", { name: item.name }))) return;
    try {
      await api("DELETE", `/api/imports/${encodeURIComponent(item.id)}`);
    } catch (error) {
      toast(errorText(error), "error");
    }
    refresh();
  }

  refresh();
  return () => {
    mounted = false;
    clearTimeout(timer);
  };
}

/** The file, the depth, and the button: the file is read here and sent as text; on success, its replay. */
function uploadForm(navigate) {
  const file = h("input", { type: "file", name: "match-file", accept: ACCEPT, required: true });
  const level = h("select", { name: "import-level" },
    h("option", { value: "advanced" }, t("analysis.level_advanced")),
    h("option", { value: "expert", selected: true }, t("analysis.level_expert")),
    h("option", { value: "world-class" }, t("analysis.level_world_class")));
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary", "data-action": "upload" }, t("imports.submit"));

  async function upload(event) {
    event.preventDefault();
    const chosen = file.files[0];
    if (!chosen) return;
    error.textContent = "";
    submit.disabled = true;
    try {
      const text = await chosen.text();
      if (text.length > MAX_CHARS) {
        error.textContent = t("imports.too_large", { max: MAX_CHARS.toLocaleString(document.documentElement.lang) });
        return;
      }
      const made = await post("/api/imports", { name: chosen.name.slice(0, MAX_NAME), text, level: level.value });
      navigate(`#/import/${encodeURIComponent(made.id)}`);
    } catch (e) {
      error.textContent = errorText(e);
    } finally {
      submit.disabled = false;
    }
  }

  return h("form", { class: "card import-form", onsubmit: upload },
    h("label", { class: "field" }, h("span", {}, t("imports.file")), file),
    h("label", { class: "field" }, h("span", {}, t("analysis.level")), level),
    error, submit);
}

/** Where an upload's analysis stands, in words. */
function statusText(analysis) {
  if (analysis.status === "queued") return t("analysis.queued");
  if (analysis.status === "running") return t("analysis.running", { percent: Math.round(100 * analysis.progress) });
  if (analysis.status === "failed") return t("analysis.failed", { reason: analysis.error || "" });
  return t("imports.analysed");
}

/** The replay of upload `importId`, its analysis beside it (queued when the file was uploaded). */
export function mountImportReplay(view, importId) {
  const base = `/api/imports/${encodeURIComponent(importId)}`;
  return mountViewer(view, { href: "#/imports", text: t("imports.back") }, async () => {
    const replay = await get(`${base}/replay`);
    const last = replay.frames[replay.frames.length - 1];
    return {
      frames: replay.frames,
      variant: replay.variant,
      title: `${replay.name} — ${variantName(replay.variant)}, ${matchLengthName(replay.match_length)}`,
      names: replay.players.map(playerName),
      whites: replay.whites,
      white: last ? last.white : 0,  // a file may end before its last game does
      cube: replay.options.cube,
      analysis: base,
      // written again from what was read: a file of one kind in, either kind out
      downloads: matchFileLinks(replay.variant, base, `nardy-import-${importId}`),
    };
  });
}
