/**
 * The README's example, as a reader copies it, run against the mock over real HTTP: it must
 * work as written, and the files it reports must be there and complete.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** The ```ts block that follows the `<!-- example: name` marker. */
async function exampleOf(name: string): Promise<string> {
  const text = await readFile(README, 'utf8');
  const at = text.indexOf(`<!-- example: ${name}`);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !block) throw new Error(`README.md has no example "${name}"`);
  return block[1]!;
}

let server: MockServer;
let dir: string;

beforeAll(async () => {
  server = await startMockServer({ port: 0, records: 300 });
  dir = await mkdtemp(join(tmpdir(), 'rcs-export-readme-'));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the example as a module (the test's aliases resolve @rcs/*), capturing its output. */
async function run(code: string, out: string): Promise<string[]> {
  const file = join(
    fileURLToPath(new URL('.', import.meta.url)),
    `.readme-example-${process.pid}-${Date.now()}.ts`,
  );
  await writeFile(file, code);
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line));
  const error = vi.spyOn(console, 'error').mockImplementation(() => {});
  vi.stubEnv('RCS_BASE_URL', server.url);
  vi.stubEnv('RCS_API_KEY', server.info.apiKey ?? '');
  vi.stubEnv('EXPORT_DIR', out);
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    log.mockRestore();
    error.mockRestore();
    vi.unstubAllEnvs();
    await rm(file, { force: true });
  }
  return lines;
}

describe('README example: a nightly Parquet export with changes', () => {
  it('runs as written, and the files it names are complete', async () => {
    const out = join(dir, 'night');
    const lines = await run(await exampleOf('nightly'), out);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.resources.map((e: { resource: string }) => e.resource)).toEqual([
      'real-call-sessions',
      'users',
    ]);
    expect(lines).toHaveLength(2);
    for (const [i, e] of manifest.resources.entries()) {
      expect(e.count).toBeGreaterThan(0);
      // First night: every record is an insert.
      expect(lines[i]).toBe(`${out}/${e.file}: ${e.count} records, +${e.count} ~0 -0`);
      const bytes = await readFile(join(out, e.file));
      expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      expect(bytes.byteLength).toBe(e.bytes);
    }
  });
});
