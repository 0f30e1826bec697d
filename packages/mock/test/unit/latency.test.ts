import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMockApi } from '../../src/api.js';

// --latency-ms counts from the request's arrival: the answer is prepared while it runs (a real
// service's latency includes its work), and still never sent before it has passed.
afterEach(() => {
  vi.useRealTimers();
});

const PATH = '/api/v1/data-exports/users';
const setImmediateReal = setImmediate;
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediateReal(r));
};

describe('latencyMs', () => {
  it('prepares the answer during the latency and sends it only once the latency has passed', async () => {
    const now = vi.fn(() => Date.parse('2026-03-02T10:15:00Z'));
    const api = createMockApi({ records: 100, clock: { now }, faults: { latencyMs: 1000 } });
    const key = api.info.apiKeys[0] as string;
    const route = api.exportRoutes.get(PATH);
    if (!route) throw new Error(`no route for ${PATH}`);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const request = () =>
      new Request(`http://mock.test${PATH}?page=1&limit=5`, { headers: { 'x-api-key': key } });

    // The first request also hashes the API keys (Web Crypto, on the thread pool).
    const first = route(request());
    await vi.advanceTimersByTimeAsync(1000);
    expect((await first).status).toBe(200);

    now.mockClear();
    let settled = false;
    const second = route(request()).then((r) => {
      settled = true;
      return r;
    });
    await turns(20);
    // The work is done (the clock was read for the rate limit and the D18 queue), the answer waits.
    expect(now).toHaveBeenCalled();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(999);
    await turns(5);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const res = await second;
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(5);
  });

  it('a refusal waits for the latency too', async () => {
    const api = createMockApi({ records: 100, faults: { latencyMs: 1000 } });
    const route = api.exportRoutes.get(PATH);
    if (!route) throw new Error(`no route for ${PATH}`);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let settled = false;
    const refused = route(new Request(`http://mock.test${PATH}`)).then((r) => {
      settled = true;
      return r;
    });
    await turns(20);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await refused).status).toBe(401);
  });
});
