import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, vi } from 'vitest';
import { CLI, type MockProcess, REPO, tempDir } from '../../../../test/support/cli.js';

export {
  assertBuilt,
  baseEnv,
  CLI,
  cliLine,
  type MockProcess,
  REPO,
  type Running,
  type RunOptions,
  type RunResult,
  runCli,
  runCommand,
  startCli,
  startMock,
  tempDir,
  WITHOUT_FILE_OVERRIDE,
} from '../../../../test/support/cli.js';

export const FIXTURES = join(REPO, 'test/shared/fixtures/transcripts');
export const ACME_FIXTURE = join(REPO, 'packages/mock/fixtures/acme.json');

/**
 * A script that runs the built CLI with `--force` after its flags, for examples/warehouse's loader
 * (its RCS_BIN): each night's mock is the one service at another moment, on a port of its own,
 * and --force lets its URL into the export directory (one directory, one service). Nothing else
 * of the run changes.
 */
export function forcedCli(): string {
  const path = join(tempDir('rcs-forced-'), 'rcs-force.mjs');
  const cli = JSON.stringify(pathToFileURL(CLI).href);
  writeFileSync(path, `process.argv.push('--force');\nawait import(${cli});\n`);
  return path;
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
