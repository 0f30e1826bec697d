/**
 * Human progress of an export (cli.md: human output goes to stderr, and only on a TTY): one line
 * per resource in the CLI's one progress component (output/progress.ts), records against
 * `meta.total`, percent and rate. The component redraws at most ten times a second and is a
 * no-op off a TTY or with `--quiet`.
 */

import type { Progress } from './progress.js';
import { type Column, renderTable as renderAlignedTable } from './table.js';

export interface ExportProgress {
  update(resource: string, count: number, total: number): void;
  finish(resource: string, status: string): void;
  /** Stops redrawing and leaves the last frame on screen. */
  stop(): void;
}

interface Line {
  count: number;
  total: number | undefined;
  status: string | undefined;
  startedAt: number;
  endedAt: number | undefined;
}

/** Counts grouped by thousands (`1,234,567`), the same on every machine whatever its locale. */
const COUNT = new Intl.NumberFormat('en-US');

export const formatCount = (n: number): string => COUNT.format(n);

export function createExportProgress(
  progress: Progress,
  resources: readonly string[],
  now: () => number = Date.now,
): ExportProgress {
  const lines = new Map<string, Line>(
    resources.map((r) => [
      r,
      { count: 0, total: undefined, status: undefined, startedAt: now(), endedAt: undefined },
    ]),
  );
  const width = Math.max(0, ...resources.map((r) => r.length));
  const show = (resource: string, line: Line) => {
    const seconds = Math.max(((line.endedAt ?? now()) - line.startedAt) / 1000, 0.001);
    const of = line.total === undefined ? '?' : formatCount(line.total);
    const pct =
      line.total === undefined || line.total === 0
        ? ''
        : ` ${Math.min(100, Math.floor((line.count / line.total) * 100))}%`;
    const rate = `${formatCount(Math.round(line.count / seconds))} rec/s`;
    const state = line.status ? `  ${line.status}` : '';
    progress.set(
      resource,
      `${resource.padEnd(width)}  ${formatCount(line.count)}/${of}${pct}  ${rate}${state}`,
    );
  };
  for (const [resource, line] of lines) show(resource, line);
  return {
    update(resource, count, total) {
      const line = lines.get(resource);
      if (!line) return;
      line.count = count;
      line.total = total;
      show(resource, line);
    },
    finish(resource, status) {
      const line = lines.get(resource);
      if (!line) return;
      line.status = status;
      line.endedAt = now();
      show(resource, line);
    },
    stop() {
      progress.stop({ keep: true });
    },
  };
}

/**
 * The summary table (no colour: it may be copied into a ticket or a log): the name and the file
 * left-aligned, the figures between them right-aligned, nothing cut short.
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const columns = header.map(
    (h, i): Column => ({
      header: h,
      align: i === 0 || i === header.length - 1 ? 'left' : 'right',
      max: Number.POSITIVE_INFINITY,
    }),
  );
  return `${renderAlignedTable(columns, rows as string[][])}\n`;
}
