// The colour theme: the stylesheet follows the device's prefers-color-scheme by itself (color-scheme: light dark);
// a theme chosen in Settings overrides it through the root's data-theme attribute.
import { getSettings, onSettingsChange } from "./settings.js";

/** Show the page in `theme`: "light" or "dark", or "auto" to follow the device. */
export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  else delete root.dataset.theme;
}

/** Apply the theme of the settings now and whenever it changes. */
export function followThemeSetting() {
  applyTheme(getSettings().theme);
  onSettingsChange((settings, patch) => {
    if ("theme" in patch) applyTheme(settings.theme);
  });
}
