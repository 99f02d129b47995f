// Small synthesised sounds (no audio files): a checker click, a dice rattle, the end chime and the turn chime.
import { getSettings } from "./settings.js";

let context = null;

function audio() {
  if (!getSettings().sound) return null;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  if (!context) context = new Ctx();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function tick(ctx, at, frequency, length, volume) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "triangle";
  osc.frequency.setValueAtTime(frequency, at);
  osc.frequency.exponentialRampToValueAtTime(frequency * 0.5, at + length);
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

export function playSound(kind) {
  let ctx;
  try { ctx = audio(); } catch { return; }
  if (!ctx) return;
  const now = ctx.currentTime;
  if (kind === "dice") {
    for (let i = 0; i < 5; i++) tick(ctx, now + i * 0.045, 900 + (i % 2) * 300, 0.04, 0.08);
  } else if (kind === "move") {
    tick(ctx, now, 420, 0.07, 0.15);
  } else if (kind === "turn") {
    tick(ctx, now, 740, 0.12, 0.12);
    tick(ctx, now + 0.14, 990, 0.2, 0.12);
  } else if (kind === "end") {
    tick(ctx, now, 660, 0.15, 0.12);
    tick(ctx, now + 0.16, 880, 0.25, 0.12);
  } else {
    tick(ctx, now, 520, 0.1, 0.1);
  }
}
