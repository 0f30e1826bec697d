import { EXPORT_TABLE } from '@rcs/client';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACME, type Acme, startAcme } from './helpers/mock-server.js';

// `rcs mock` answers the nine export GETs through `api.exportRoutes` instead of MSW's matching:
// the same handler code, so the same answers, byte for byte.
let m: Acme;
beforeAll(async () => {
  m = await startAcme();
});
afterAll(() => m.close());

async function both(target: string, headers: Record<string, string>) {
  const overHttp = await fetch(`${m.server.url}${target}`, { headers });
  const viaMsw = await getResponse(
    m.server.api.handlers,
    new Request(`${m.server.url}${target}`, { headers }),
  );
  if (!viaMsw) throw new Error(`MSW has no handler for ${target}`);
  return {
    http: {
      status: overHttp.status,
      type: overHttp.headers.get('content-type'),
      body: await overHttp.text(),
    },
    msw: {
      status: viaMsw.status,
      type: viaMsw.headers.get('content-type'),
      body: await viaMsw.text(),
    },
  };
}

describe('the export GETs answered without MSW matching', () => {
  it('has one route per EXPORT_TABLE path, used by the server for a GET on that path', async () => {
    expect([...m.server.api.exportRoutes.keys()].sort()).toEqual(
      EXPORT_TABLE.map((e) => e.path).sort(),
    );
    const get = vi.spyOn(m.server.api.exportRoutes, 'get');
    try {
      const r = await fetch(`${m.server.url}/api/v1/data-exports/users?page=1&limit=2`, {
        headers: { 'x-api-key': ACME.key },
      });
      expect(r.status).toBe(200);
      expect(get).toHaveBeenCalledWith('/api/v1/data-exports/users');
    } finally {
      get.mockRestore();
    }
  });

  it.each(EXPORT_TABLE.map((e) => [e.path]))(
    '%s: the same answer as its MSW handler',
    async (path) => {
      for (const query of ['page=1&limit=3', 'page=2&limit=1', 'page=999&limit=100', 'limit=0']) {
        const { http, msw } = await both(`${path}?${query}`, { 'x-api-key': ACME.key });
        expect(http).toEqual(msw);
      }
      // Refusals too: no key (401), an unknown key (401).
      for (const headers of [{}, { 'x-api-key': `${ACME.key}x` }] as Record<string, string>[]) {
        const { http, msw } = await both(`${path}?page=1`, headers);
        expect(http.status).toBe(401);
        expect(http).toEqual(msw);
      }
    },
  );

  it('a path that is not exactly an export path still goes through MSW (trailing slash, POST)', async () => {
    const get = vi.spyOn(m.server.api.exportRoutes, 'get');
    try {
      const slash = await both('/api/v1/data-exports/users/?page=1&limit=1', {
        'x-api-key': ACME.key,
      });
      expect(slash.http).toEqual(slash.msw);
      const post = await fetch(`${m.server.url}/api/v1/data-exports/users`, {
        method: 'POST',
        headers: { 'x-api-key': ACME.key },
      });
      expect(post.status).toBe(404);
      expect(get).toHaveBeenCalledTimes(1);
    } finally {
      get.mockRestore();
    }
  });
});
