import { truncate } from './table.js';

/**
 * Progress on stderr, only on a TTY and never with --quiet (cli.md): a block of status lines, one
 * per session being waited for, each with a spinner, redrawn in place. Off a TTY every method is
 * a no-op, so scripts and pipes see none of it.
 */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  /** Shows or updates the line of `id`. */
  set(id: string, text: string): void;
  /** Removes the line of `id` (its result is printed elsewhere, on stdout or as an error). */
  done(id: string): void;
  stop(): void;
}

const noop: Progress = { set() {}, done() {}, stop() {} };

export function createProgress(stream: NodeJS.WritableStream, enabled: boolean): Progress {
  if (!enabled) return noop;
  const lines = new Map<string, string>();
  let drawn = 0;
  let frame = 0;
  const clear = () => {
    // Move up over the block we drew and clear it.
    if (drawn > 0) stream.write(`\u001b[${drawn}A\u001b[0J`);
    drawn = 0;
  };
  const draw = () => {
    clear();
    const spinner = FRAMES[frame % FRAMES.length];
    // One physical line per row, or clearing by row count would leave wrapped remains.
    const columns = (stream as NodeJS.WriteStream).columns;
    const width = typeof columns === 'number' && columns > 10 ? columns - 3 : 77;
    const rows = [...lines.values()].slice(0, 20).map((t) => `${spinner} ${truncate(t, width)}`);
    if (lines.size > 20) rows.push(`  … and ${lines.size - 20} more`);
    if (rows.length > 0) stream.write(`${rows.join('\n')}\n`);
    drawn = rows.length;
  };
  const timer = setInterval(() => {
    frame++;
    if (lines.size > 0) draw();
  }, 100);
  timer.unref();
  return {
    set(id, text) {
      lines.set(id, text);
      draw();
    },
    done(id) {
      lines.delete(id);
      draw();
    },
    stop() {
      clearInterval(timer);
      clear();
      lines.clear();
    },
  };
}
