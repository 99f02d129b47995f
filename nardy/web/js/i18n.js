// Translations: t(KEY, {name: value}) in scripts and data-i18n attributes in markup.
// Languages: Russian, English, Georgian, Turkish, Greek; the default follows the browser, falling back to English.

export const LANGUAGES = [
  { code: "ru", name: "Русский" },
  { code: "en", name: "English" },
  { code: "ka", name: "ქართული" },
  { code: "tr", name: "Türkçe" },
  { code: "el", name: "Ελληνικά" },
];
const CODES = LANGUAGES.map((l) => l.code);

let language = "en";
let strings = {};
let fallback = {};
const cache = new Map();
const listeners = new Set();

async function load(code) {
  if (!cache.has(code)) {
    cache.set(code, fetch(`i18n/${code}.json`).then((r) => {
      if (!r.ok) throw new Error(`cannot load i18n/${code}.json`);
      return r.json();
    }));
  }
  return cache.get(code);
}

/** The browser's preferred supported language, else English. */
export function browserLanguage() {
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (CODES.includes(code)) return code;
  }
  return "en";
}

export function currentLanguage() { return language; }

/** Switch to `code` (null: the browser's language) and retranslate the page. */
export async function setLanguage(code) {
  const next = CODES.includes(code) ? code : browserLanguage();
  fallback = await load("en");
  strings = next === "en" ? fallback : await load(next).catch(() => fallback);
  language = next;
  document.documentElement.lang = next;
  translate(document);
  for (const fn of listeners) fn(next);
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The translation of key, with {placeholders} filled from params. */
export function t(key, params) {
  let text = strings[key] ?? fallback[key] ?? key;
  if (params) text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  return text;
}

/**
 * The translation of a name the server sends as data (a variant's id, a level, a kind of win): key
 * `${namespace}.${id}` ("variant.long-traditional"), else `otherwise`. A new variant thus needs translations
 * only; tests/web/test_i18n.py checks each namespace has every name the server has.
 */
export function tData(namespace, id, otherwise) {
  const key = `${namespace}.${id}`;
  return strings[key] ?? fallback[key] ?? otherwise;
}

/** Fill data-i18n (text), data-i18n-title, data-i18n-aria-label and data-i18n-placeholder under root. */
export function translate(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["title", "aria-label", "placeholder"]) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
  }
}
