/** Reading what a test's run wrote: shared by every package's tests (import by relative path). */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

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

/**
 * Each file of a directory (those `keep` keeps) with the SHA-256 of its bytes: did a run leave
 * the directory exactly as it was?
 */
export async function snapshot(
  dir: string,
  keep: (name: string) => boolean = () => true,
): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter(keep).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (n) => [n, await sha(join(dir, n))])),
  );
}
