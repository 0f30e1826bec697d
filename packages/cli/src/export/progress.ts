/**
 * Human progress of an export on stderr (cli.md: human output goes to stderr, and only when it
 * is a TTY; stdout carries results only). One line per resource, redrawn in place at most ten
 * times a second: records against `meta.total`, percent and rate. Off when not a TTY or with
 * `--quiet`; then `update` costs one comparison.
 */

import { type Column, renderTable as renderAlignedTable } from '../output/table.js';

export interface ProgressSink {
  write(text: string): unknown;
}

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

const NOOP: ExportProgress = { update() {}, finish() {}, stop() {} };

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

export function createProgress(
  sink: ProgressSink,
  resources: readonly string[],
  enabled: boolean,
  now: () => number = Date.now,
): ExportProgress {
  if (!enabled || resources.length === 0) return NOOP;
  const lines = new Map<string, Line>(
    resources.map((r) => [
      r,
      { count: 0, total: undefined, status: undefined, startedAt: now(), endedAt: undefined },
    ]),
  );
  const width = Math.max(...resources.map((r) => r.length));
  let drawn = 0;
  let dirty = true;

  const render = () => {
    if (!dirty) return;
    dirty = false;
    let out = drawn > 0 ? `\x1b[${drawn}A` : '';
    for (const [resource, line] of lines) {
      const seconds = Math.max(((line.endedAt ?? now()) - line.startedAt) / 1000, 0.001);
      const of = line.total === undefined ? '?' : formatCount(line.total);
      const pct =
        line.total === undefined || line.total === 0
          ? ''
          : ` ${Math.min(100, Math.floor((line.count / line.total) * 100))}%`;
      const rate = `${formatCount(Math.round(line.count / seconds))} rec/s`;
      const state = line.status ? `  ${line.status}` : '';
      out += `\x1b[2K  ${resource.padEnd(width)}  ${formatCount(line.count)}/${of}${pct}  ${rate}${state}\n`;
    }
    drawn = lines.size;
    sink.write(out);
  };
  const timer = setInterval(render, 100);
  timer.unref?.();

  return {
    update(resource, count, total) {
      const line = lines.get(resource);
      if (!line) return;
      line.count = count;
      line.total = total;
      dirty = true;
    },
    finish(resource, status) {
      const line = lines.get(resource);
      if (!line) return;
      line.status = status;
      line.endedAt = now();
      dirty = true;
    },
    stop() {
      clearInterval(timer);
      render();
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
