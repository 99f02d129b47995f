// A suggested play (a hint's or the analysis board's best play) drawn on the board as arrows.

/** A play's steps as arrows for the side to move, who is the board's "me"; gold, as a suggestion. */
export function playArrows(play) {
  return (play.steps || []).map((s) => ({ from: s.source, to: s.target, mine: true, pending: true }));
}
