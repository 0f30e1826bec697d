import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { EXPORT_RESOURCES } from '@rcs/client';
import { DEFAULT_OUT_DIR } from '@rcs/export';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/context.js';
import { main } from '../../src/program.js';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += d;
  });
  stderr.on('data', (d) => {
    err += d;
  });
  const io: CliIO = {
    stdout,
    stderr,
    stdin: new PassThrough(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { RCS_BASE_URL: 'http://127.0.0.1:9', RCS_API_KEY: 'test-key' },
    cwd: mkdtempSync(join(tmpdir(), 'rcs-export-help-')),
    version: 'test',
    signal: new AbortController().signal,
  };
  const code = await main(['node', 'rcs', ...args], io);
  return { code, out, err };
}

// The names and the default come from the client's EXPORT_TABLE and the export engine, loaded
// when `rcs export` runs: its help must still show them.
describe('rcs export help', () => {
  it.each([[['export', '--help']], [['help', 'export']]])(
    'rcs %j lists the nine exports of EXPORT_TABLE, then all, and the default directory',
    async (args) => {
      const { code, out: wrapped } = await run(args);
      expect(code).toBe(0);
      const out = wrapped.replace(/\s+/g, ' ');
      expect(out).toContain(`${EXPORT_RESOURCES.join(', ')}, or all`);
      expect(out).toContain(`(default: "${DEFAULT_OUT_DIR}")`);
    },
  );

  it('a mistyped name gets the closest export and the list of all nine (exit 2)', async () => {
    const { code, err } = await run(['export', 'user']);
    expect(code).toBe(2);
    expect(err).toMatch(/unknown export "user" .*users/);
    expect(err).toContain(EXPORT_RESOURCES.join(', '));
  });
});
