import { truncate } from './table.js';

/**
 * The CLI's one progress component (`ctx.progress()`): a block of live status
 * lines on stderr, each with a spinner, redrawn in place at most ten times a second, plus
 * permanent result lines printed above it. Only on a TTY and never with --quiet (cli.md): off a
 * TTY every method is a no-op, so scripts and pipes see none of it. Used by upload (a line per
 * file in flight), export (a line per resource), sessions wait and demo (one line each).
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const REDRAW_MS = 100;
const MAX_ROWS = 20;

export interface Progress {
  /** Shows or updates the live line of `id`. */
  set(id: string, text: string): void;
  /** Removes the line of `id`; with `result`, prints it once as a permanent `✔` line. */
  done(id: string, result?: string): void;
  /** Stops redrawing: clears the live lines, or with `keep` leaves the last frame on screen. */
  stop(options?: { keep?: boolean }): void;
}

const NOOP: Progress = { set() {}, done() {}, stop() {} };

export function createProgress(
  stream: NodeJS.WritableStream,
  enabled: boolean,
  now: () => number = Date.now,
): Progress {
  if (!enabled) return NOOP;
  const lines = new Map<string, string>();
  let drawn = 0;
  let frame = 0;
  let dirty = false;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let stopped = false;

  const width = () => {
    // One physical line per row, or clearing by row count would leave wrapped remains. A
    // pseudo-terminal that reports 0 columns gets a safe default.
    const columns = (stream as NodeJS.WriteStream).columns;
    return typeof columns === 'number' && columns > 10 ? columns - 3 : 77;
  };
  const clear = () => (drawn > 0 ? `\u001b[${drawn}A\u001b[0J` : '');
  const block = () => {
    const spinner = FRAMES[frame % FRAMES.length];
    const w = width();
    const rows = [...lines.values()].slice(0, MAX_ROWS).map((t) => `${spinner} ${truncate(t, w)}`);
    if (lines.size > MAX_ROWS) rows.push(`  … and ${lines.size - MAX_ROWS} more`);
    return rows;
  };
  const draw = (above = '') => {
    const rows = block();
    stream.write(`${clear()}${above}${rows.length > 0 ? `${rows.join('\n')}\n` : ''}`);
    drawn = rows.length;
    dirty = false;
    lastDraw = now();
  };
  /** Draws now unless a frame went out moments ago; then the timer draws it. */
  const schedule = () => {
    if (stopped) return;
    if (now() - lastDraw >= REDRAW_MS) draw();
    else dirty = true;
  };
  const timer = setInterval(() => {
    frame++;
    if (lines.size > 0 || dirty) draw();
  }, REDRAW_MS);
  timer.unref();

  return {
    set(id, text) {
      if (lines.get(id) === text) return;
      lines.set(id, text);
      schedule();
    },
    done(id, result) {
      lines.delete(id);
      if (stopped) return;
      if (result !== undefined) draw(`✔ ${truncate(result, width())}\n`);
      else schedule();
    },
    stop(options = {}) {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (options.keep) {
        if (dirty) draw();
      } else {
        stream.write(clear());
        drawn = 0;
      }
      lines.clear();
    },
  };
}
