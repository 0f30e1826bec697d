import { readdir, readlink } from 'node:fs/promises';

/**
 * The files under `dir` this process has open (Linux: /proc/self/fd), or undefined where the
 * system does not tell. A descriptor left open is a leak: a long-running caller runs out of them.
 */
export async function openFilesUnder(dir: string): Promise<string[] | undefined> {
  const fds = await readdir('/proc/self/fd').catch(() => undefined);
  if (fds === undefined) return undefined;
  const targets = await Promise.all(
    fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target.startsWith(`${dir}/`));
}
