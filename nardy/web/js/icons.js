// Inline SVG icons for buttons. The emoji and symbols they replace (🎲 ⏮ ⏭ ↶ ⚑ …) show as empty
// boxes on a system without an emoji font; a path is drawn everywhere, in the text colour.

const LINE = 'fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"';
const SOLID = 'fill="currentColor"';

const SHAPES = {
  dice: `<rect x="3.5" y="3.5" width="17" height="17" rx="4" ${LINE}/><circle cx="8.5" cy="8.5" r="1.7" ${SOLID}/>`
    + `<circle cx="12" cy="12" r="1.7" ${SOLID}/><circle cx="15.5" cy="15.5" r="1.7" ${SOLID}/>`,
  undo: `<path d="M9 14 4 9l5-5" ${LINE}/><path d="M4 9h10.5a5.5 5.5 0 0 1 0 11H11" ${LINE}/>`,
  confirm: `<path d="m4.5 12.5 5 5 10-11" ${LINE}/>`,
  swap: `<path d="M4 8h15m-4-4 4 4-4 4M20 16H5m4-4-4 4 4 4" ${LINE}/>`,
  flag: `<path d="M5 21V4" ${LINE}/><path d="M5 4h12l-2.5 4.5L17 13H5" ${LINE}/>`,
  first: `<path d="M6 5v14" ${LINE}/><path d="M19 5 9 12l10 7z" ${SOLID}/>`,
  back: `<path d="M17 5 7 12l10 7z" ${SOLID}/>`,
  forward: `<path d="m7 5 10 7-10 7z" ${SOLID}/>`,
  last: `<path d="M18 5v14" ${LINE}/><path d="m5 5 10 7-10 7z" ${SOLID}/>`,
  clock: `<circle cx="12" cy="13" r="8" ${LINE}/><path d="M12 9v4l2.5 2.5M9.5 2.5h5" ${LINE}/>`,
  fullscreen: `<path d="M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5" ${LINE}/>`,
};

/** An icon (one of SHAPES) as a decorative element for a button or label, hidden from screen readers. */
export function icon(name) {
  const span = document.createElement("span");
  span.className = `icon icon-${name}`;
  span.setAttribute("aria-hidden", "true");
  span.innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" focusable="false">${SHAPES[name]}</svg>`;
  return span;
}
