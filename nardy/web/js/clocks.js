// What a seat's clock shows, from the table's view alone: the server decides every deadline and bank
// (docs/protocol.md, "Time controls"); the page only counts down to them, corrected by its clock skew.

/**
 * The clock of ``seat`` at ``now`` (ms, the server's time): null when it shows nothing, else
 * {left, delay, bank, low}, each in ms or null.
 *
 * - A limit per move: the actor's ``left`` until the deadline.
 * - A bank clock: every seat's ``bank``; for the actor, the ``delay`` left first (while it runs the
 *   bank stands still), then the bank running down to the deadline.
 */
export function seatClock(state, seat, now) {
  const deadline = state.deadline ? Date.parse(state.deadline) : null;
  const running = deadline !== null && state.actor === seat;
  const left = running ? Math.max(0, deadline - now) : null;
  if (state.banks && state.status === "playing") {
    const bank = state.banks[seat] * 1000;
    if (!running) return { left: null, delay: null, bank, low: false };
    return { left: null, delay: Math.max(0, left - bank), bank: Math.min(bank, left), low: left < 10000 };
  }
  if (!running) return null;
  return { left, delay: null, bank: null, low: left < 10000 };
}
