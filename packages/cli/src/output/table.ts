import { safeLine } from './sanitize.js';

/** Display width, counting East Asian wide characters and emoji as two columns. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || (c >= 0x300 && c <= 0x36f) || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) {
      continue;
    }
    w +=
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1faff) ||
      (c >= 0x20000 && c <= 0x3fffd)
        ? 2
        : 1;
  }
  return w;
}

function pad(s: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return align === 'right' ? fill + s : s + fill;
}

/** Cuts to a display width, with an ellipsis, so one long name does not wrap the whole table. */
export function truncate(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  let out = '';
  for (const ch of s) {
    if (displayWidth(out + ch) > max - 1) break;
    out += ch;
  }
  return `${out}…`;
}

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /** Longest a cell may be shown (default 60). */
  max?: number;
}

/**
 * A plain aligned table for people. Every cell is made terminal-safe here (cells often hold
 * service-supplied text: item names, explanations).
 */
export function renderTable(columns: Column[], rows: unknown[][]): string {
  const cells = rows.map((row) =>
    columns.map((col, i) => truncate(safeLine(row[i] ?? ''), col.max ?? 60)),
  );
  // A loop, not Math.max(...cells): a spread passes every row as an argument, and a table can
  // have as many rows as a transcript has speakers (one per cue is possible).
  const widths = columns.map((col, i) => {
    let width = displayWidth(col.header);
    for (const r of cells) width = Math.max(width, displayWidth(r[i] ?? ''));
    return width;
  });
  const line = (r: string[]) =>
    r
      .map((c, i) => pad(c, widths[i] ?? 0, columns[i]?.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}
