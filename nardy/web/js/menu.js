// The header's menu on a narrow screen: the links wait behind one button (app.css shows the button and hides
// the links below 600 px), so that the header keeps to one row and the page starts near the top.

/** Wire the menu button: it opens and closes the links; following a link or changing page closes them. */
export function setupMenu() {
  const bar = document.querySelector(".topbar");
  const button = bar.querySelector("[data-action=menu]");
  const setOpen = (open) => {
    bar.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => setOpen(!bar.classList.contains("menu-open")));
  bar.querySelector("nav").addEventListener("click", (event) => { if (event.target.closest("a")) setOpen(false); });
  window.addEventListener("hashchange", () => setOpen(false));
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") setOpen(false); });
}
