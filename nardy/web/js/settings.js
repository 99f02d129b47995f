// Player settings, kept in localStorage: board orientation, side swap, language, theme, sound, auto-confirm,
// the automatic roll and forced play (what is forced, and whether one may double, the server says), and the
// "your turn" signal while the page is hidden (a chime; a notification, off until the player allows it).
import { h, fill } from "./dom.js";
import { LANGUAGES, setLanguage, t } from "./i18n.js";
import { askNotificationPermission, notificationsAvailable } from "./notifications.js";
import { post } from "./api.js";
import { currentUser } from "./session.js";

const KEY = "nardy.settings";
export const CORNERS = ["bottom-right", "bottom-left", "top-right", "top-left"];
/** The colour themes: "auto" follows the device (prefers-color-scheme); js/theme.js applies the choice. */
export const THEMES = ["auto", "light", "dark"];
const DEFAULTS = {
  home: "bottom-right", autoSwap: false, language: null, theme: "auto", sound: true, autoConfirm: false, autoRoll: false,
  autoForced: false, turnSound: true, turnNotify: false,
};
const listeners = new Set();

export function getSettings() {
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { stored = {}; }
  const settings = { ...DEFAULTS, ...stored };
  if (!CORNERS.includes(settings.home)) settings.home = DEFAULTS.home;
  if (!THEMES.includes(settings.theme)) settings.theme = DEFAULTS.theme;
  return settings;
}

export function saveSettings(patch) {
  const next = { ...getSettings(), ...patch };
  localStorage.setItem(KEY, JSON.stringify(next));
  for (const fn of listeners) fn(next, patch);
  return next;
}

export function onSettingsChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The home corner with its left/right side swapped (automatic side swap after each game). */
export function swappedSide(corner) {
  const [row, side] = corner.split("-");
  return `${row}-${side === "right" ? "left" : "right"}`;
}

function cornerName(corner) {
  return {
    "bottom-right": t("settings.corner_bottom_right"),
    "bottom-left": t("settings.corner_bottom_left"),
    "top-right": t("settings.corner_top_right"),
    "top-left": t("settings.corner_top_left"),
  }[corner];
}

/** A small picture of the board with the home quarter marked. */
function cornerPicture(corner) {
  const [row, side] = corner.split("-");
  const x = side === "right" ? 33 : 3;
  const y = row === "bottom" ? 17 : 3;
  const svg = `<svg viewBox="0 0 60 34" aria-hidden="true" class="corner-pic"><rect x="0.5" y="0.5" width="59" height="33" rx="3" class="cp-frame"/><rect x="29" y="1" width="2" height="32" class="cp-bar"/><rect x="${x}" y="${y}" width="24" height="14" rx="2" class="cp-home"/></svg>`;
  const span = document.createElement("span");
  span.innerHTML = svg;
  return span.firstChild;
}

/** The notification switch: turning it on asks the browser's permission first, and stays off if refused. */
function notifySwitch(s) {
  const available = notificationsAvailable();
  const box = h("input", {
    type: "checkbox", name: "turnNotify", checked: available && s.turnNotify && Notification.permission === "granted",
    disabled: !available,
    onchange: async (e) => {
      const on = e.target.checked && await askNotificationPermission();
      e.target.checked = on;
      saveSettings({ turnNotify: on });
    },
  });
  return h("label", { class: "toggle" }, box, h("span", {}, t("settings.turn_notify")),
    h("small", { class: "hint" }, available ? t("settings.turn_notify_hint") : t("settings.turn_notify_unavailable")));
}

export function renderSettings(view) {
  const s = getSettings();
  const corners = h("fieldset", { class: "corners" },
    h("legend", {}, t("settings.orientation")),
    CORNERS.map((corner) => h("label", { class: "corner-option" },
      h("input", {
        type: "radio", name: "home", value: corner, checked: s.home === corner, "data-corner": corner,
        onchange: () => saveSettings({ home: corner }),
      }),
      cornerPicture(corner),
      h("span", {}, cornerName(corner)),
    )),
  );
  const toggle = (key, label, hint) => h("label", { class: "toggle" },
    h("input", { type: "checkbox", name: key, checked: !!s[key], onchange: (e) => saveSettings({ [key]: e.target.checked }) }),
    h("span", {}, label),
    hint ? h("small", { class: "hint" }, hint) : null,
  );
  const language = h("label", { class: "field" },
    h("span", {}, t("settings.language")),
    h("select", {
      name: "language", value: s.language || "",
      onchange: async (e) => {
        const code = e.target.value || null;
        saveSettings({ language: code });
        await setLanguage(code);
        // an account's mails (a verification, a password reset) are written in the language it chose
        const user = currentUser();
        if (user && !user.guest) post("/api/account/language", { language: code }).catch(() => {});
      },
    },
    h("option", { value: "" }, t("settings.language_auto")),
    LANGUAGES.map((l) => h("option", { value: l.code, lang: l.code }, l.name))),
  );
  const themeNames = { auto: t("settings.theme_auto"), light: t("settings.theme_light"), dark: t("settings.theme_dark") };
  const theme = h("label", { class: "field" },
    h("span", {}, t("settings.theme")),
    h("select", { name: "theme", value: s.theme, onchange: (e) => saveSettings({ theme: e.target.value }) },
      THEMES.map((name) => h("option", { value: name }, themeNames[name]))),
  );
  fill(view, h("section", { class: "page settings" },
    h("h1", {}, t("settings.title")),
    corners,
    toggle("autoSwap", t("settings.auto_swap"), t("settings.auto_swap_hint")),
    language,
    theme,
    toggle("sound", t("settings.sound")),
    toggle("autoConfirm", t("settings.auto_confirm"), t("settings.auto_confirm_hint")),
    toggle("autoRoll", t("settings.auto_roll"), t("settings.auto_roll_hint")),
    toggle("autoForced", t("settings.auto_forced"), t("settings.auto_forced_hint")),
    toggle("turnSound", t("settings.turn_sound"), t("settings.turn_sound_hint")),
    notifySwitch(s),
    h("p", { class: "hint" }, t("settings.saved_locally")),
  ));
}
