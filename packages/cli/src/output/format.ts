/** Number formats for people. KPI units are D21's: listenRatio 0–1, seconds, words per minute. */

function formatPercent(ratio: number | null | undefined): string {
  return typeof ratio === 'number' ? `${(ratio * 100).toFixed(1)}%` : '–';
}

function formatSeconds(seconds: number | null | undefined): string {
  return typeof seconds === 'number' ? `${Math.round(seconds)} s` : '–';
}

function formatWpm(wpm: number | null | undefined): string {
  return typeof wpm === 'number' ? `${Math.round(wpm)} wpm` : '–';
}

/** 0:42, 12:05, 1:02:03. */
export function formatClock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export interface KpiValues {
  listenRatio?: number | null;
  longestMonologue?: number | null;
  talkSpeed?: number | null;
}

export function formatKpis(k: KpiValues): string {
  return [
    `listen ratio ${formatPercent(k.listenRatio)}`,
    `longest monologue ${formatSeconds(k.longestMonologue)}`,
    `talk speed ${formatWpm(k.talkSpeed)}`,
  ].join(' · ');
}

/** Minimal ANSI styling; a no-op when colour is off (NO_COLOR, non-TTY). */
export function style(color: boolean) {
  const wrap = (open: number, close: number) => (s: string) =>
    color ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
