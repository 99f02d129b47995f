// Click-to-highlight play, shared by the game page and the chouette page.
//
// Both pages get the legal next steps from the server (`legal.steps`: source,
// target, die) and send one step per click; these helpers only decide what a
// click means and how the dice look. They know no rule.

/**
 * What a click on point p means, given the legal next steps and the selected point:
 * {step: {source, die}} to send a step, or {select: point or null} to change the selection.
 * `swap` prefers the smaller die when a checker is played by clicking it twice.
 */
export function pickStep(steps, selected, p, swap = false) {
  const from = (q) => steps.filter((s) => s.source === q);
  const preferred = (options) => {
    const dice = options.map((s) => s.die);
    return swap ? Math.min(...dice) : Math.max(...dice);
  };
  if (selected !== null) {
    if (p === selected) {
      const options = from(p);
      if (options.length) return { step: { source: p, die: preferred(options) } };
    } else {
      const onto = from(selected).filter((s) => s.target === p);
      if (onto.length) return { step: { source: selected, die: Math.min(...onto.map((s) => s.die)) } };
    }
  }
  const options = from(p);
  if (!options.length) return { select: null };
  if (options.every((s) => s.target === 0)) return { step: { source: p, die: Math.min(...options.map((s) => s.die)) } };
  return { select: p };
}

/** The dice as the board draws them: the values in play order (doubles four times) and which are used. */
export function diceFaces(dice, pending, swap = false) {
  const [a, b] = dice;
  const values = a === b ? [a, a, a, a] : (swap ? [Math.min(a, b), Math.max(a, b)] : [Math.max(a, b), Math.min(a, b)]);
  const used = values.map(() => false);
  for (const step of pending || []) {
    const i = values.findIndex((v, k) => v === step.die && !used[k]);
    if (i >= 0) used[i] = true;
  }
  return { values, used };
}

/** The points movable now, and the targets of the selected one (the board's highlights). */
export function highlights(steps, selected) {
  const movable = new Set(steps.map((x) => x.source));
  const chosen = selected !== null && movable.has(selected) ? selected : null;
  const targets = new Set(chosen !== null ? steps.filter((x) => x.source === chosen).map((x) => x.target) : []);
  return { movable, selected: chosen, targets };
}
