/**
 * `--out DIR` is checked before the first request (cli.md "Unattended runs"): created
 * here if missing, one level at a time, and proven writable. Node's `mkdir(…, { recursive: true })`
 * is not used: on some paths (`/proc/nope`) it loops at 100 % CPU forever instead of failing.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ExportUsageError, usageError } from '../errors.js';
import { followsOwnLinks } from './safe-open.js';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a directory',
  ENOENT: 'a part of the path does not exist and cannot be created',
  ENOSPC: 'no space left on the device',
};

function refuse(dir: string, why: string): Error {
  return usageError(`\`out\` ${dir}: cannot use it as the output directory (${why})`);
}

function reasonOf(error: unknown): string {
  const code = String((error as NodeJS.ErrnoException).code); // stat, mkdir, access always give one
  return REASONS[code] ? `${REASONS[code]}, ${code}` : code;
}

/**
 * Makes sure `dir` is a writable directory; throws a usage error (exit 2) naming why not. A link
 * in its path is followed only when the user made it (safe-open.ts): one planted by another user
 * in a shared directory would send the export elsewhere.
 */
export async function prepareOutputDirectory(dir: string): Promise<void> {
  const target = resolve(dir);
  try {
    followsOwnLinks(target);
  } catch (error) {
    throw refuse(dir, (error as Error).message);
  }
  // The missing levels, deepest first, found by walking up to the first one that exists.
  const missing: string[] = [];
  let at = target;
  for (;;) {
    try {
      const info = await stat(at);
      if (!info.isDirectory()) {
        throw refuse(dir, at === target ? 'it is a file' : `${at} is a file, not a directory`);
      }
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') {
        if (error instanceof ExportUsageError) throw error;
        throw refuse(dir, reasonOf(error));
      }
      const parent = dirname(at);
      if (parent === at) throw refuse(dir, reasonOf(error));
      missing.push(at);
      at = parent;
    }
  }
  for (const level of missing.reverse()) {
    try {
      await mkdir(level, { mode: 0o700 });
    } catch (error) {
      // Another process may have made it meanwhile; anything else is final.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw refuse(dir, reasonOf(error));
    }
  }
  try {
    await access(target, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw refuse(dir, reasonOf(error));
  }
}
