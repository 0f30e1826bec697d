/**
 * The V8 settings `rcs export` makes at run time (src/export/heap.ts) as the real process sees
 * them: V8 reports each scavenge with `--trace-gc-nvp`. A Node whose V8 ignored the flags would
 * export correctly but use its 64 MB young generation (peak RSS) or stay at 1-2 MB (a quarter of
 * the CPU in the garbage collector): bench/export measures both; this test guards that the
 * settings still take effect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YOUNG_TARGET_MB } from '../../src/export/heap.js';
import { assertBuilt, CLI, runCommand } from './helpers.js';

let mock: MockServer;
let dir: string;
beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, records: 20_000, seed: 5 });
  dir = await mkdtemp(join(tmpdir(), 'rcs-export-heap-'));
});
afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

/** `rcs export all` under `--trace-gc-nvp`: the young generation's capacity at each scavenge. */
async function scavengeCapacities(): Promise<{ code: number | null; capacities: number[] }> {
  const r = await runCommand(
    process.execPath,
    ['--trace-gc-nvp', CLI, 'export', 'all', '--out', join(dir, 'out')],
    { cwd: dir, env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.info.apiKey } },
  );
  const capacities = r.stdout
    .split('\n')
    .filter((line) => line.includes('gc=s '))
    .map((line) => Number(/\bnew_space_capacity=(\d+)/.exec(line)?.[1]));
  return { code: r.code, capacities };
}

describe('rcs export: the young generation (src/export/heap.ts)', () => {
  it(`grows to ${YOUNG_TARGET_MB} MB and is held there for the rest of the export`, async () => {
    const { code, capacities } = await scavengeCapacities();
    expect(code).toBe(0);
    // 20,000 records allocate far more than a few young generations: many scavenges.
    expect(capacities.length).toBeGreaterThan(20);
    expect(capacities.every(Number.isFinite)).toBe(true);
    const target = YOUNG_TARGET_MB * 1024 * 1024;
    // Reached (never growing would stay at 1-2 MB)…
    const first = capacities.findIndex((c) => c >= target);
    expect(first, `capacities: ${capacities.join(' ')}`).toBeGreaterThanOrEqual(0);
    // …at the target, or one growth step past it if V8 grew twice between two checks…
    const held = capacities[first]!;
    expect(held).toBeLessThanOrEqual(2 * target);
    // …and held: no later scavenge ran with a larger one (V8's default goes on to 16-64 MB).
    expect(Math.max(...capacities.slice(first))).toBe(held);
  });
});
