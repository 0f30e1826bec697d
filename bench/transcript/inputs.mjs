// Deterministic bench inputs: speaker-labeled SRT (e-mail labels, name labels, no label; 1–2
// lines per cue; clock times and URLs in the text, as in real calls).

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the renewal quote pricing seats contract we can schedule a follow-up on Tuesday your team ' +
  'mentioned budget approval legal review onboarding timeline integration support discount ' +
  'annual plan at 10:30 see https://example.com/deck for details, thanks! great question'
).split(' ');
const LABELS = [
  'rep@acme.com: ',
  'ana.ruiz@acme.com: ',
  'buyer@client.org: ',
  'Client: ',
  'Agent: ',
  '',
  '',
];

function ts(ms) {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const r = ms % 1000;
  const p = (v, n) => String(v).padStart(n, '0');
  return `${p(h, 2)}:${p(m, 2)}:${p(s, 2)},${p(r, 3)}`;
}

/** A speaker-labeled SRT of at most `maxChars` characters (whole cues only). */
export function makeSrt(maxChars, seed = 42) {
  const rnd = mulberry32(seed);
  const parts = [];
  let size = 0;
  let t = 0;
  for (let i = 1; ; i++) {
    const lines = 1 + (rnd() < 0.35 ? 1 : 0);
    let body = LABELS[Math.floor(rnd() * LABELS.length)];
    for (let l = 0; l < lines; l++) {
      const n = 4 + Math.floor(rnd() * 9);
      const w = [];
      for (let k = 0; k < n; k++) w.push(WORDS[Math.floor(rnd() * WORDS.length)]);
      body += (l > 0 ? '\n' : '') + w.join(' ');
    }
    const dur = 800 + Math.floor(rnd() * 4000);
    const cue = `${i}\n${ts(t)} --> ${ts(t + dur)}\n${body}\n\n`;
    if (size + cue.length > maxChars) break;
    parts.push(cue);
    size += cue.length;
    t += dur + Math.floor(rnd() * 1500);
  }
  return parts.join('');
}
