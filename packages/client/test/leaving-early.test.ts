import { describe, expect, it, vi } from 'vitest';

// all() over the engine: a consumer that leaves early lets the engine finish, rather
// than leaving it waiting forever on a page nobody will take (and holding what it holds).
const engineRuns: { settled: boolean; ended: Promise<void> }[] = [];
vi.mock('../src/page-engine.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/page-engine.js')>();
  return {
    ...real,
    runPages: (...args: Parameters<typeof real.runPages>) => {
      const p = real.runPages(...args);
      const run = { settled: false, ended: Promise.resolve() };
      const done = () => {
        run.settled = true;
      };
      run.ended = p.then(done, done);
      engineRuns.push(run);
      return p;
    },
  };
});
const { paginate } = await import('../src/paginate.js');

describe('all() and its engine', () => {
  it('a consumer that leaves early lets the engine finish', async () => {
    const read = async (n: number) => ({
      data: Array.from({ length: 10 }, (_, i) => ({ id: `r${(n - 1) * 10 + i}` })),
      meta: { total: 50, page: n, limit: 10, hasNext: n < 5 },
    });
    for await (const r of paginate(read as never, { concurrency: 2, limit: 10 })) {
      if (r.id === 'r0') break;
    }
    // The engine's run ends (a run left waiting on a page nobody takes never would).
    expect(engineRuns).toHaveLength(1);
    await engineRuns[0]!.ended;
    expect(engineRuns[0]!.settled).toBe(true);
  });
});
