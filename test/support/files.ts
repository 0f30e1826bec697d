/** Reading what a test's run wrote: shared by every package's tests (import by relative path). */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** The records of a JSONL file, one a line (blank lines skipped: an empty file has none). */
export async function readJsonl<T = { id: string } & Record<string, unknown>>(
  path: string,
): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The SHA-256 of a file's bytes, in hex: did a run leave the file as it was? */
export async function sha(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}
