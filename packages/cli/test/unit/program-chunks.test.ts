import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { CliIO } from '../../src/context.js';
import { main } from '../../src/program.js';

// A chunk of the bundle that fails to load is a bug to see, not a feature to hide: `rcs export`
// and `rcs demo` report the real error (exit 1) instead of "not available" or a skipped step.
vi.mock('../../src/commands/export.js', () => {
  throw new Error('chunk-export.js is broken');
});

function io(): { io: CliIO; err: () => string } {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (d) => {
    err += d;
  });
  return {
    io: {
      stdout: new PassThrough(),
      stderr,
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: { RCS_BASE_URL: 'http://127.0.0.1:9', RCS_API_KEY: 'test-key' },
      cwd: mkdtempSync(join(tmpdir(), 'rcs-chunks-')),
      version: 'test',
      signal: new AbortController().signal,
    },
    err: () => err,
  };
}

describe('a command module that fails to load', () => {
  it.each([[['export', 'users']], [['demo']]])('rcs %j: exit 1 with the cause', async (args) => {
    const { io: cli, err } = io();
    expect(await main(['node', 'rcs', ...args], cli)).toBe(1);
    // vitest wraps the factory's throw in its own message: the cause is shown either way.
    expect(err()).toMatch(/error when mocking a module/);
    expect(err()).not.toMatch(/not available|skipped the export/);
  });
});
