/**
 * Two real processes take over the same stale export lock at the same moment: exactly one holds
 * it, the other is refused at once, naming the winner (before, both could believe they held it,
 * and the loser found out only when it came to commit). The lock module is bundled from source
 * with esbuild, so the processes run the code under test, not a build.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/files/lock.js';

const TRIALS = 50;

let work: string;
let script: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rcs-lock-race-'));
  const bundle = join(work, 'lock.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/files/lock.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
  script = join(work, 'take.mjs');
  // Says "ready", waits for "go", tries to take the lock; the winner holds it until its stdin ends.
  await writeFile(
    script,
    `import { acquireExportLock } from ${JSON.stringify(bundle)};
import { createInterface } from 'node:readline';
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\\n');
for await (const line of lines) {
  if (line !== 'go') continue;
  try {
    const lock = await acquireExportLock(process.argv[2]);
    process.stdout.write('won\\n');
    for await (const _ of lines);
    await lock.assertHeld();
    await lock.release();
  } catch (error) {
    process.stdout.write(\`lost \${error.name}: \${error.message}\\n\`);
  }
  break;
}
`,
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** A pid that surely belongs to no running process: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

/** The child's lines, one at a time. */
function linesOf(child: ChildProcess): () => Promise<string> {
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return async () => {
    const next = await lines.next();
    return next.done ? '(no answer)' : next.value;
  };
}

async function trial(n: number): Promise<{ outcomes: string[]; holder: number; pids: number[] }> {
  const dir = join(work, `trial-${n}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  await writeFile(
    join(dir, LOCK_FILE),
    JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '', token: 'stale' }),
  );
  const children = [0, 1].map(() =>
    spawn(process.execPath, [script, dir], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const next = children.map(linesOf);
  try {
    // Both loaded and waiting: then both are told to go at once.
    expect(await Promise.all(next.map((line) => line()))).toEqual(['ready', 'ready']);
    for (const child of children) child.stdin!.write('go\n');
    const outcomes = await Promise.all(next.map((line) => line()));
    const holder = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid as number;
    return { outcomes, holder, pids: children.map((c) => c.pid!) };
  } finally {
    for (const child of children) child.stdin!.end();
    await Promise.all(children.map((child) => once(child, 'close')));
    // The winner released the lock on its way out: nothing is left behind.
    expect(await readdir(dir)).toEqual([]);
  }
}

describe('two processes taking over the same stale lock', () => {
  it(`exactly one wins, in each of ${TRIALS} trials; the other is refused naming it`, async () => {
    const failures: string[] = [];
    for (let n = 0; n < TRIALS; n++) {
      const { outcomes, holder, pids } = await trial(n);
      const winners = outcomes.flatMap((o, i) => (o === 'won' ? [pids[i]] : []));
      const losers = outcomes.filter((o) => o !== 'won');
      const ok =
        winners.length === 1 &&
        winners[0] === holder &&
        losers.every(
          (o) =>
            /^lost ExportLockedError: another rcs export is (writing to|taking over the lock of) /.test(
              o,
            ) && o.includes(`(pid ${holder} on ${hostname()}`),
        );
      if (!ok) failures.push(`trial ${n}: ${JSON.stringify(outcomes)} (lock held by ${holder})`);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
