// Short sound effects made with WebAudio (no files): one per kind of event, and a mute
// switch remembered in localStorage.

const KEY = "paohuzi.mute";

/** Notes (frequency Hz, seconds) of each sound. */
const NOTES: Record<string, [number, number][]> = {
  draw: [[660, 0.05]],
  show: [[520, 0.06]],
  discard: [[440, 0.07]],
  chi: [[523, 0.07], [659, 0.09]],
  peng: [[392, 0.08], [523, 0.1]],
  wei: [[349, 0.08], [440, 0.08]],
  pao: [[330, 0.08], [440, 0.08], [554, 0.1]],
  ti: [[294, 0.08], [392, 0.08], [494, 0.1]],
  hu: [[523, 0.1], [659, 0.1], [784, 0.1], [1047, 0.2]],
  settle: [[392, 0.12], [494, 0.12], [587, 0.2]],
  turn: [[880, 0.05], [880, 0.05]],
};

let context: AudioContext | null = null;

export function muted(): boolean {
  return localStorage.getItem(KEY) === "on";
}

export function toggleMute(): void {
  localStorage.setItem(KEY, muted() ? "off" : "on");
}

/** Play a sound by name (an event kind, "settle" or "turn"); nothing when muted. */
export function play(name: string): void {
  const notes = NOTES[name];
  if (!notes || muted()) return;
  try {
    context ??= new AudioContext();
    if (context.state === "suspended") void context.resume();
    let at = context.currentTime;
    for (const [freq, length] of notes) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + length);
      osc.connect(gain).connect(context.destination);
      osc.start(at);
      osc.stop(at + length);
      at += length;
    }
  } catch {
    // no audio here (or not allowed yet): play silently
  }
}
