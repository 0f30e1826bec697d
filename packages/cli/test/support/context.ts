/**
 * The CLI's one test context: a CliContext over in-memory streams, for tests
 * that call a command's run(opts, ctx) without a process.
 */
import { PassThrough } from 'node:stream';
import type { RcsClient } from '@rcs/client';
import type { CliContext } from '../../src/context.js';
import { createProgress } from '../../src/output/progress.js';

export interface FakeContext {
  ctx: CliContext;
  stdout(): string;
  stderr(): string;
}

export function fakeContext(options: {
  client: () => Promise<RcsClient> | RcsClient;
  signal?: AbortSignal;
  json?: boolean;
  stderrIsTTY?: boolean;
  quiet?: boolean;
  /** The working directory commands resolve files against (default: the process's). */
  cwd?: string;
}): FakeContext {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  err.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const tty = options.stderrIsTTY ?? false;
  const ctx: CliContext = {
    stdout: out,
    stderr: err,
    stdoutIsTTY: false,
    stderrIsTTY: tty,
    color: false,
    json: options.json ?? false,
    quiet: options.quiet ?? false,
    verbose: false,
    version: '0.0.0-test',
    signal: options.signal ?? new AbortController().signal,
    env: {},
    cwd: options.cwd ?? process.cwd(),
    getClient: async () => options.client(),
    getCredentials: async () => ({ apiKey: 'test-api-key' }),
    log(msg) {
      if (tty && !options.quiet) err.write(`${msg}\n`);
    },
    error(msg) {
      err.write(`rcs: ${msg}\n`);
    },
    redact: (text) => text,
    progress: () => createProgress(err, tty && !options.quiet),
  };
  return { ctx, stdout: () => stdout, stderr: () => stderr };
}
