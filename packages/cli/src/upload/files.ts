import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { followsOwnLinks } from '@rcs/export/internal';
import { isUnsafeFile, usageError } from '../errors.js';

/** Extensions a directory is searched for: SRT, WebVTT, text exports, and the JSON of Fireflies/Gong. */
const TRANSCRIPT_EXTENSIONS = ['.srt', '.vtt', '.txt', '.json'];

/** An entry of a named directory that was not taken, and why (in its `--json` line: `reason`). */
export interface SkippedEntry {
  file: string;
  reason: { code: string; message: string };
}

/**
 * The files an `upload` names: files as given, directories as their transcript files (sorted, not
 * recursive, hidden files skipped). A directory gives its regular files only, as `find` and `rsync`
 * do by default: a link in it is not followed (another user may have planted it in a shared drop
 * folder, pointing at a file of yours), a FIFO, socket, device or subdirectory is not read; each
 * is returned as skipped, with why. A path that does not exist is a usage error (exit 2) before
 * anything is sent, and so is a directory reached through a link another user could have planted.
 */
export async function expandFiles(
  args: string[],
  cwd: string,
): Promise<{ files: string[]; skipped: SkippedEntry[] }> {
  const out: string[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  const add = (p: string) => {
    const abs = resolve(cwd, p);
    if (!seen.has(abs)) {
      seen.add(abs);
      out.push(p);
    }
  };
  for (const arg of args) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(resolve(cwd, arg));
      if (info.isDirectory()) followsOwnLinks(resolve(cwd, arg));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw usageError(
        isUnsafeFile(error)
          ? error.message
          : code === 'ENOENT'
            ? `no such file or directory: ${arg}`
            : `cannot read ${arg} (${code})`,
      );
    }
    if (info.isDirectory()) {
      const entries = (await readdir(resolve(cwd, arg), { withFileTypes: true }))
        .filter(
          (e) =>
            !e.name.startsWith('.') &&
            TRANSCRIPT_EXTENSIONS.includes(extname(e.name).toLowerCase()),
        )
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      if (entries.length === 0) {
        throw usageError(
          `the directory ${arg} has no transcript files (${TRANSCRIPT_EXTENSIONS.join(', ')})`,
        );
      }
      for (const e of entries) {
        // None of them: a block device.
        const [, code, message] = NOT_READ.find(([is]) => e[is]()) ?? NOT_READ[4];
        if (e.isFile()) add(join(arg, e.name));
        else skipped.push({ file: join(arg, e.name), reason: { code, message } });
      }
    } else {
      add(arg);
    }
  }
  return { files: out, skipped };
}

/** Why a directory's entry is not read (its `--json` line's `reason`): only regular files are. */
const NOT_READ = [
  [
    'isSymbolicLink',
    'symbolic_link',
    'a symbolic link: links in a directory are not followed (one may have been planted to make rcs send another file); name the file itself to upload it',
  ],
  ['isDirectory', 'directory', 'a directory: directories are not searched'],
  ['isFIFO', 'fifo', 'a FIFO (named pipe), not a regular file'],
  ['isSocket', 'socket', 'a socket, not a regular file'],
  ['isCharacterDevice', 'device', 'a device, not a regular file'],
] as const;

/** `--speaker "Ana Ruiz=ana@acme.com"` (repeatable) → the importer's speaker map. */
export function parseSpeakerMap(values: string[] | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const v of values ?? []) {
    const at = v.lastIndexOf('=');
    const name = at > 0 ? v.slice(0, at).trim() : '';
    const email = at > 0 ? v.slice(at + 1).trim() : '';
    if (!name || !email) {
      throw usageError(
        `--speaker "${v}" must be "Name=email", e.g. --speaker "Ana Ruiz=ana@acme.com"`,
      );
    }
    map[name] = email;
  }
  return map;
}
