import { fstatSync, statSync, writeSync } from 'node:fs';

/**
 * Whether `fd` is certainly not a terminal: a regular file, a pipe (FIFO), or /dev/null. Node
 * would make such a stdout a SyncWriteStream or a pipe socket, written synchronously; creating
 * either loads Node's stream modules, ~2 ms of `rcs --help` (bench/cli). Anything else (a TTY, a
 * socket, Windows, an fstat error) is "not certain", and gets Node's stream as before.
 */
export function certainlyNotATerminal(fd: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() || stat.isFIFO()) return true;
    if (!stat.isCharacterDevice()) return false;
    const devNull = statSync('/dev/null');
    return stat.dev === devNull.dev && stat.ino === devNull.ino && stat.rdev === devNull.rdev;
  } catch {
    return false;
  }
}

/** Commander's colour test (commander/lib/command.js `useColor`): undefined when the env is silent. */
export function colorFromEnv(env: NodeJS.ProcessEnv): boolean | undefined {
  if (env.NO_COLOR || env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR || env.CLICOLOR_FORCE !== undefined) return true;
  return undefined;
}

/**
 * Writes `text` to `fd` with write(2) until done. A pipe left non-blocking by someone else can
 * answer EAGAIN: the rest then goes to `fallback` (Node's stream, which waits for the reader).
 * Any other error is handed to `onError`, as the stream's 'error' event would be.
 */
export function writeDirect(
  fd: number,
  text: string,
  fallback: () => NodeJS.WritableStream,
  onError: (error: NodeJS.ErrnoException) => void,
): void {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN')
      fallback().write(bytes.subarray(written));
    else onError(error as NodeJS.ErrnoException);
  }
}
