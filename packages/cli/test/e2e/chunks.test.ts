// What each command loads (start-up, bench/cli): the bundle's static import graph from the chunk
// the program (dist/rcs.js) imports lazily for a command must not pull in another command's code.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from './helpers.js';

const DIST = dirname(CLI);

/** Every file a chunk loads before it runs: its static imports, transitively. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(DIST, file), 'utf8');
  for (const m of text.matchAll(/^import\s+(?:[\s\S]*?\s+from\s+)?"\.\/([^"]+)";?$/gm)) {
    staticClosure(m[1]!, seen);
  }
  return seen;
}

/** The chunk `file` imports lazily whose name starts with `name` (`import("./sessions-XXXX.js")`). */
function lazyChunk(file: string, name: string): string {
  const text = readFileSync(join(DIST, file), 'utf8');
  const found = [...text.matchAll(/import\("\.\/([^"]+)"\)/g)]
    .map((m) => m[1]!)
    .find((f) => f.startsWith(`${name}-`));
  if (!found) throw new Error(`no lazily imported ${name} chunk in ${file}`);
  return found;
}

/** The program (commander and the command declarations): the bundle's entry itself. */
const program = () => 'rcs.js';

/** The chunk of a command, which the program imports when that command runs. */
const commandChunk = (name: string) => lazyChunk(program(), name);

const loads = (name: string) =>
  [...staticClosure(commandChunk(name))].map((f) => readFileSync(join(DIST, f), 'utf8')).join('\n');

beforeAll(() => {
  assertBuilt();
});

describe('lazily loaded commands stay apart in the bundle', () => {
  it('rcs sessions loads no upload code', () => {
    const code = loads('sessions');
    expect(code).toMatch(/function runWait/);
    expect(code).not.toMatch(/class UploadTask|UploadTask = class/);
  });

  it('rcs demo loads no sessions or upload command code', () => {
    const code = loads('demo');
    expect(code).not.toMatch(/function runWait|UploadTask = class/);
  });
});

describe('the Parquet writer is paid for by --format parquet only', () => {
  it('rcs export loads no Parquet code until a Parquet file is written', () => {
    const code = loads('export');
    expect(code).toMatch(/jsonlEncoder|function csvEncoder/);
    expect(code).not.toMatch(/class LeafChunk|LeafChunk = class/);
    // …but can reach it: the writer is a chunk of its own, imported when the format asks.
    expect(code).toMatch(/import\("\.\/parquet-encoder-[^"]+\.js"\)/);
    expect(readFileSync(CLI, 'utf8')).not.toMatch(/class LeafChunk|LeafChunk = class/);
  });
});
