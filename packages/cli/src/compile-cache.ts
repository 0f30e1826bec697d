import { lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * Node's compile cache (V8 code cache on disk, Node >= 22.1) for the rest of the run, in a
 * directory only this user can write: `$XDG_CACHE_HOME/rcs/compile-cache`, else
 * `~/.cache/rcs/compile-cache` (issue 27). Never Node's default, `os.tmpdir()/node-compile-cache`:
 * another local user can create that directory first and plant a cache, and V8 runs a planted
 * code cache whose script has the right length. Node checks a cache file's content (a damaged one
 * is compiled again), not who wrote it. When the directory cannot be made private the run goes
 * without a cache: slower by a few milliseconds, never unsafe. `NODE_COMPILE_CACHE` (the user's
 * own choice of directory) and `NODE_DISABLE_COMPILE_CACHE=1` keep their Node meaning.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (!module.enableCompileCache || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) {
    return;
  }
  const dir = compileCacheDir(env);
  if (dir && isPrivateDirectory(dir)) module.enableCompileCache(dir);
}

/** Where the cache goes: the XDG base directory (relative values are ignored, as the spec says). */
export function compileCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'rcs', 'compile-cache');
  if (process.platform === 'win32' && env.LOCALAPPDATA) {
    return join(env.LOCALAPPDATA, 'rcs', 'compile-cache');
  }
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined; // no HOME and no passwd entry: no cache
  }
  return home ? join(home, '.cache', 'rcs', 'compile-cache') : undefined;
}

/**
 * Creates `dir` (0700) and says whether it is ours alone: a real directory (not a link), owned by
 * this user, no access for group or others, and no directory above it that someone else could
 * use to replace it (each is this user's or root's, and writable by others only when sticky, as
 * /tmp). On Windows the per-user profile's ACLs do that job.
 */
export function isPrivateDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return false;
    const uid = process.getuid?.();
    if (uid === undefined) return true;
    if (stat.uid !== uid || (stat.mode & 0o077) !== 0) return false;
    for (let up = dirname(realpathSync(dir)); ; up = dirname(up)) {
      const above = statSync(up);
      if (above.uid !== uid && above.uid !== 0) return false;
      if ((above.mode & 0o022) !== 0 && (above.mode & 0o1000) === 0) return false;
      if (dirname(up) === up) return true;
    }
  } catch {
    return false; // cannot create or inspect it: no cache
  }
}
