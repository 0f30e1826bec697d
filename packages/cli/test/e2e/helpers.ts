import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, vi } from 'vitest';

/** The built CLI: e2e tests run what users run (`npm run build` first). */
export const CLI = fileURLToPath(new URL('../../dist/rcs.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURES = join(REPO, 'test/shared/fixtures/transcripts');
export const ACME_FIXTURE = join(REPO, 'packages/mock/fixtures/acme.json');

export function assertBuilt(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` before the e2e tests`);
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  input?: string;
  /** Called with the child right after spawn (e.g. to send SIGINT later). */
  onSpawn?: (child: ChildProcess) => void;
}

/** A clean environment: no RCS_* from the developer's shell, config in the temp dir, no colour. */
export function baseEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    NO_COLOR: '1',
  };
}

/** Spawns `node dist/rcs.js …` with the same Node as the tests (the pinned Node 24). */
export function runCli(args: string[], options: RunOptions): Promise<RunResult> {
  return runCommand(process.execPath, [CLI, ...args], options);
}

/**
 * Spawns any command in a clean environment (baseEnv plus `env`; undefined removes a variable),
 * without blocking this process (an in-process mock keeps answering), and collects its output.
 */
export function runCommand(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { ...baseEnv(options.cwd) };
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(bin, args, { cwd: options.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    options.onSpawn?.(child);
  });
}

export function tempDir(prefix = 'rcs-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function readLedger(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A speaker-labeled SRT in which `rep` speaks; `n` makes each text (and hash) distinct. */
export function labeledCall(rep: string, n: number, customer = 'buyer@client.example'): string {
  return [
    '1',
    '00:00:01,000 --> 00:00:05,000',
    `${rep}: Thanks for joining, call ${n}. What budget do you have this year?`,
    '',
    '2',
    '00:00:05,500 --> 00:00:09,000',
    `${customer}: Around twenty thousand; the decision is next week.`,
    '',
    '3',
    '00:00:09,500 --> 00:00:14,000',
    `${rep}: Then the next step is a follow up on the calendar for Thursday.`,
    '',
  ].join('\n');
}

export interface MockProcess {
  url: string;
  apiKey: string;
  repEmails: string[];
  child: ChildProcess;
  /** SIGTERM, and waits for the process to end. */
  stop(): Promise<void>;
}

/**
 * A real `rcs mock` process on loopback (cli.md: the first stdout line is the base URL, then
 * `API key: …` and `Rep emails: …` with the demo dataset). Stop it with `stop()`.
 */
export async function startMock(args: string[] = []): Promise<MockProcess> {
  const dir = tempDir('rcs-mock-');
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [CLI, 'mock', ...port, ...args], { env: baseEnv(dir) });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const lines = await new Promise<string[]>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const all = out.split('\n');
      if (all.length > 3) resolve(all);
    });
    child.on('close', (code) => reject(new Error(`rcs mock exited ${code}: ${err}`)));
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    url: lines[0] ?? '',
    apiKey: (lines[1] ?? '').replace(/^API key: /, ''),
    repEmails: (lines[2] ?? '').replace(/^Rep emails: /, '').split(', '),
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
    },
  };
}

/**
 * How many sessions of the mock's sessions export hold `transcript` (stored as sent: the texts of
 * `labeledCall` have e-mail labels only, which D16 keeps), counted over every page.
 */
export async function sessionsWith(
  mock: Pick<MockProcess, 'url' | 'apiKey'>,
  transcripts: readonly string[],
): Promise<number[]> {
  const counts = transcripts.map(() => 0);
  for (let page = 1; ; page++) {
    const res = await fetch(
      `${mock.url}/api/v1/data-exports/real-call-sessions?page=${page}&limit=100`,
      { headers: { 'x-api-key': mock.apiKey } },
    );
    if (!res.ok) throw new Error(`the sessions export answered ${res.status}`);
    const body = (await res.json()) as {
      data: { transcript: string | null }[];
      meta: { hasNext: boolean };
    };
    for (const s of body.data) {
      transcripts.forEach((t, i) => {
        if (s.transcript === t) counts[i] = (counts[i] ?? 0) + 1;
      });
    }
    if (!body.meta.hasNext) return counts;
  }
}

/**
 * Until `child` has taken `signal` (no longer pending in /proc/<pid>/status): its handler has it
 * then, and a signal sent after it is handled after it, not merged with it (two of one signal
 * pending together are one; of two signals, the lower number is delivered first).
 */
export async function signalTaken(
  child: ChildProcess,
  signal: 'SIGTERM' | 'SIGINT',
): Promise<void> {
  const bit = 1n << BigInt(constants.signals[signal] - 1);
  const pending = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return ['SigPnd', 'ShdPnd'].some((field) => {
      const mask = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1] ?? '0';
      return (BigInt(`0x${mask}`) & bit) !== 0n;
    });
  };
  await vi.waitFor(() => expect(pending()).toBe(false), { timeout: 10_000, interval: 5 });
}
