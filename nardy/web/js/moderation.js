// The moderators' console (docs/moderation.md): #/moderation is the report queue, the unreviewed fair-play flags
// (docs/fair-play.md), a search for a user and the audit log; #/moderation/NAME one account's view (games with
// their analysis figures, its fair-play flags, chat, reports by and against, rating history, coins ledger,
// addresses shared with other accounts, its log) and the actions on it. A flag is marked reviewed with a reason;
// nothing bans on a flag. The server answers moderators only; everyone else sees its refusal.
import { h, fill, scrollable } from "./dom.js";
import { t } from "./i18n.js";
import { get, post, errorText } from "./api.js";
import { formatDate, variantName } from "./names.js";

const ACTIONS = () => [
  ["warn", t("mod.action_warn")],
  ["mute", t("mod.action_mute")],
  ["unmute", t("mod.action_unmute")],
  ["ban", t("mod.action_ban")],
  ["unban", t("mod.action_unban")],
  ["mark_engine", t("mod.action_mark_engine")],
  ["unmark_engine", t("mod.action_unmark_engine")],
];

function actionName(action) {
  const names = Object.fromEntries([
    ...ACTIONS(),
    ["close_report", t("mod.action_close_report")],
    ["review_fair_play", t("mod.action_review_fair_play")],
    ["grant_moderator", t("mod.action_grant_moderator")],
    ["revoke_moderator", t("mod.action_revoke_moderator")],
  ]);
  return names[action] ?? action;
}

function categoryName(category) {
  return { cheating: t("report.cheating"), abuse: t("report.abuse"), stalling: t("report.stalling"), other: t("report.other") }[category] ?? category;
}

const userLink = (name) => (name ? h("a", { href: `#/moderation/${encodeURIComponent(name)}` }, name) : "–");

function grid(headings, rows) {
  if (!rows.length) return h("p", { class: "hint" }, t("mod.none"));
  return scrollable(h("table", { class: "data" },
    h("thead", {}, h("tr", {}, headings.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((c) => h("td", {}, c)))))));
}

export function mountModeration(view, username, context) {
  const page = h("section", { class: "page moderation", "data-moderation": username ? "user" : "queue" },
    h("h1", {}, t("mod.title")), h("p", {}, t("common.loading")));
  fill(view, page);
  const failed = (error) => fill(page, h("h1", {}, t("mod.title")), h("p", { class: "error" }, errorText(error)));
  if (username) showUser(page, username, context).catch(failed);
  else showQueue(page, context).catch(failed);
  return () => {};
}

function reportsTable(reports, withClose, reload, context) {
  const headings = [t("profile.date"), t("mod.reporter"), t("mod.reported"), t("report.category"), t("report.text"), ""];
  return grid(withClose ? [...headings, ""] : headings, reports.map((r) => {
    const cells = [
      formatDate(r.created_at), userLink(r.reporter), userLink(r.reported), categoryName(r.category), r.text,
      r.table ? h("a", { href: `#/replay/${r.table}` }, t("game.replay")) : "",
    ];
    return withClose ? [...cells, closeForm(r, reload, context)] : cells;
  }));
}

function closeForm(report, reload, context) {
  const reason = h("input", { type: "text", name: "reason", maxlength: "500", required: true, placeholder: t("mod.reason"), "aria-label": t("mod.reason") });
  return h("form", {
    class: "row", "data-close-report": String(report.id),
    onsubmit: async (event) => {
      event.preventDefault();
      try { await post(`/api/mod/reports/${report.id}/close`, { reason: reason.value }); reload(); } catch (error) { context.toast(errorText(error), "error"); }
    },
  }, reason, h("button", { type: "submit" }, t("mod.close")));
}

function reviewForm(flag, reload, context) {
  const reason = h("input", { type: "text", name: "reason", maxlength: "500", required: true, placeholder: t("mod.reason"), "aria-label": t("mod.reason") });
  return h("form", {
    class: "row", "data-review-flag": String(flag.id),
    onsubmit: async (event) => {
      event.preventDefault();
      try { await post(`/api/mod/fair-play/${flag.id}/review`, { reason: reason.value }); reload(); } catch (error) { context.toast(errorText(error), "error"); }
    },
  }, reason, h("button", { type: "submit" }, t("mod.fp_review")));
}

// The evidence as the detector stored it (nardy.bots.fair_play.Verdict.evidence): the z-scores and the figures
// beside those of the accounts of its rating; a figure it lacks shows as a dash.
function evidenceText(evidence) {
  const number = (x, digits) => (typeof x === "number" ? x.toFixed(digits) : "–");
  const percent = (x) => (typeof x === "number" ? (100 * x).toFixed(1) : "–");
  const reference = evidence.reference ?? {};
  return t("mod.fp_evidence", {
    z_pr: number(evidence.z_pr, 2), z_match: number(evidence.z_match, 2),
    pr: number(evidence.pr, 2), pr_median: number(reference.pr_median, 2),
    match: percent(evidence.match_rate), match_median: percent(reference.match_median),
    accounts: String(reference.accounts ?? "–"),
  });
}

function flagsTable(flags, withReview, reload, context) {
  return grid(
    [t("mod.fp_flag"), t("profile.date"), t("mod.user"), t("lobby.variant"), t("mod.fp_statistic"), t("mod.fp_evidence_title"), t("mod.fp_games"), ""],
    flags.map((f) => [
      `#${f.id}`, formatDate(f.created_at), userLink(f.username), variantName(f.variant),
      `${f.statistic} ${f.value.toFixed(2)} ≥ ${f.threshold.toFixed(2)}`, evidenceText(f.evidence ?? {}), String(f.games),
      f.reviewed_at ? t("mod.fp_reviewed_by", { name: f.reviewed_by ?? "–", date: formatDate(f.reviewed_at) })
        : withReview ? reviewForm(f, reload, context) : t("mod.fp_open"),
    ]),
  );
}

/** An entry's action, with the fair-play flag it reviewed (as the flags' tables number them). */
function entryAction(entry) {
  return entry.flag == null ? actionName(entry.action) : `${actionName(entry.action)} (${t("mod.flag_ref", { id: entry.flag })})`;
}

function logTable(entries) {
  return grid(
    [t("profile.date"), t("mod.moderator"), t("mod.user"), t("mod.action"), t("mod.reason"), t("mod.until")],
    entries.map((e) => [formatDate(e.at), e.moderator ?? t("mod.operator"), userLink(e.target), entryAction(e), e.reason,
      e.until ? formatDate(e.until) : ""]),
  );
}

async function showQueue(page, context) {
  const [queue, log] = await Promise.all([get("/api/mod/reports"), get("/api/mod/log")]);
  const name = h("input", { type: "text", name: "username", required: true, "aria-label": t("mod.username"), placeholder: t("mod.username") });
  const reload = () => showQueue(page, context).catch((error) => context.toast(errorText(error), "error"));
  fill(page,
    h("h1", {}, t("mod.title")),
    h("form", {
      class: "row card", "data-find-user": "",
      onsubmit: (event) => { event.preventDefault(); context.navigate(`#/moderation/${encodeURIComponent(name.value.trim())}`); },
    }, name, h("button", { type: "submit" }, t("mod.show"))),
    h("div", { class: "card", "data-report-queue": "" }, h("h2", {}, t("mod.queue")),
      queue.reports.length ? reportsTable(queue.reports, true, reload, context) : h("p", { class: "hint" }, t("mod.no_reports"))),
    h("div", { class: "card", "data-fair-play-queue": "" }, h("h2", {}, t("mod.fair_play")), h("p", { class: "hint" }, t("mod.fp_hint")),
      queue.fair_play.length ? flagsTable(queue.fair_play, true, reload, context) : h("p", { class: "hint" }, t("mod.no_flags"))),
    h("div", { class: "card", "data-audit-log": "" }, h("h2", {}, t("mod.log")), logTable(log.entries)));
}

function actionForm(username, reload, context) {
  const action = h("select", { name: "action", "aria-label": t("mod.action") }, ACTIONS().map(([value, label]) => h("option", { value }, label)));
  const minutes = h("input", { type: "number", name: "minutes", min: "1", "aria-label": t("mod.minutes"), placeholder: t("mod.minutes") });
  const reason = h("input", { type: "text", name: "reason", maxlength: "500", required: true, "aria-label": t("mod.reason"), placeholder: t("mod.reason") });
  return h("form", {
    class: "stack card", "data-moderation-action": "",
    onsubmit: async (event) => {
      event.preventDefault();
      const body = { action: action.value, reason: reason.value };
      if (minutes.value) body.minutes = Number(minutes.value);
      try {
        await post(`/api/mod/users/${encodeURIComponent(username)}/actions`, body);
        context.toast(t("mod.done"));
        reload();
      } catch (error) {
        context.toast(t("error.refused", { message: errorText(error) }), "error");
      }
    },
  }, h("h2", {}, t("mod.actions")), h("div", { class: "row" }, action, minutes), reason, h("button", { type: "submit" }, t("mod.apply")));
}

function figures(analysis) {
  if (!analysis) return "–";
  return analysis.map((s) => `${s.name}: ${t("mod.error_rate")} ${s.error_rate.toFixed(1)}, PR ${s.pr.toFixed(1)}`).join("; ");
}

async function showUser(page, username, context) {
  const data = await get(`/api/mod/users/${encodeURIComponent(username)}`);
  const reload = () => showUser(page, username, context).catch((error) => context.toast(errorText(error), "error"));
  const s = data.standing;
  const standing = [
    ...s.warnings.map((w) => t("standing.warning", { date: formatDate(w.at), reason: w.reason })),
    s.muted ? t("standing.muted", { until: s.muted.until ? formatDate(s.muted.until) : t("standing.for_good"), reason: s.muted.reason }) : null,
    s.banned ? t("standing.banned", { until: s.banned.until ? formatDate(s.banned.until) : t("standing.for_good"), reason: s.banned.reason }) : null,
    s.engine_assisted ? t("standing.engine") : null,
  ].filter(Boolean);
  const section = (title, body, key) => h("div", { class: "card", "data-section": key }, h("h2", {}, title), body);
  fill(page,
    h("h1", {}, t("mod.user_title", { name: data.user.username })),
    h("p", {}, h("a", { href: "#/moderation" }, t("mod.queue")), " · ", h("a", { href: `#/profile/${encodeURIComponent(data.user.username)}` }, t("nav.profile"))),
    section(t("standing.title"), standing.length ? h("ul", {}, standing.map((line) => h("li", {}, line))) : h("p", { class: "hint" }, t("mod.none")), "standing"),
    actionForm(data.user.username, reload, context),
    section(t("mod.games"), grid([t("profile.date"), t("lobby.variant"), t("mod.players"), t("mod.figures"), ""],
      data.games.map((g) => [formatDate(g.created_at), variantName(g.variant), g.players.map((p) => p ?? "–").join(" – "), figures(g.analysis),
        h("a", { href: `#/replay/${g.table}` }, t("game.replay"))])), "games"),
    section(t("mod.fair_play"), flagsTable(data.fair_play, true, reload, context), "fair-play"),
    section(t("mod.chat"), grid([t("profile.date"), t("report.text")],
      data.chat.map((m) => [formatDate(m.at), m.text ?? m.phrase])), "chat"),
    section(t("mod.reports_against"), reportsTable(data.reports_against, false, reload, context), "reports-against"),
    section(t("mod.reports_by"), reportsTable(data.reports_by, false, reload, context), "reports-by"),
    section(t("mod.ratings"), grid([t("profile.date"), t("mod.family"), t("mod.before"), t("mod.after"), t("mod.reason")],
      data.ratings.map((r) => [formatDate(r.at), r.family, r.before.toFixed(1), r.after.toFixed(1), r.reason ?? ""])), "ratings"),
    section(t("mod.coins"), grid([t("profile.date"), t("mod.amount"), t("mod.reason"), t("mod.balance")],
      data.coins.map((c) => [formatDate(c.at), String(c.amount), c.reason, String(c.balance_after)])), "coins"),
    section(t("mod.shared"), grid([t("mod.address"), t("mod.user")],
      data.shared_addresses.map((a) => [a.address, userLink(a.username)])), "shared"),
    section(t("mod.log"), logTable(data.log), "log"));
}
