import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { usageError } from '../errors.js';

/** Extensions a directory is searched for: SRT, WebVTT, text exports, and the JSON of Fireflies/Gong. */
const TRANSCRIPT_EXTENSIONS = ['.srt', '.vtt', '.txt', '.json'];

/**
 * The files an `upload` names: files as given, directories as their transcript files (sorted, not
 * recursive, hidden files skipped). A path that does not exist is a usage error (exit 2) before
 * anything is sent.
 */
export async function expandFiles(args: string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
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
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw usageError(
        code === 'ENOENT' ? `no such file or directory: ${arg}` : `cannot read ${arg} (${code})`,
      );
    }
    if (info.isDirectory()) {
      const names = (await readdir(resolve(cwd, arg)))
        .filter(
          (n) => !n.startsWith('.') && TRANSCRIPT_EXTENSIONS.includes(extname(n).toLowerCase()),
        )
        .sort();
      if (names.length === 0) {
        throw usageError(
          `the directory ${arg} has no transcript files (${TRANSCRIPT_EXTENSIONS.join(', ')})`,
        );
      }
      for (const n of names) add(join(arg, n));
    } else {
      add(arg);
    }
  }
  return out;
}

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
