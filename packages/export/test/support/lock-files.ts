import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

/** A pid that surely belongs to a running process other than ours: our parent. */
export const LIVE_PID = process.ppid;

/** A pid that surely belongs to no running process: one that has just exited. */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/**
 * The name of the claim a taker creates to take over the lock file as it is now (or, `of`, a
 * claim of a taker that died).
 */
export async function claimOf(path: string, of = path): Promise<string> {
  const info = await stat(of);
  const identity = createHash('sha256')
    .update(`${info.dev}:${info.ino}:${info.ctimeMs}:${info.size}\n`)
    .update(await readFile(of))
    .digest('hex')
    .slice(0, 32);
  return `${path}.takeover-${identity}`;
}
