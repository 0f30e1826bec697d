import { createMockApi, loadFixtureFile } from '@rcs/mock/node';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ACME, ACME_FIXTURE, virtualClock } from './helpers/mock-server.js';
import { openApiValidator } from './helpers/openapi-validator.js';

/** The handlers also work in-process with MSW's setupServer, on any base URL. */

const clock = virtualClock();
let api: ReturnType<typeof createMockApi>;
let server: ReturnType<typeof setupServer>;
const spec = openApiValidator();
const BASE = 'https://rcs.example.test';

beforeAll(async () => {
  api = createMockApi({ fixture: await loadFixtureFile(ACME_FIXTURE), clock, processingMs: 1000 });
  server = setupServer(...api.handlers);
  server.listen({ onUnhandledRequest: 'error' });
});
afterAll(() => server.close());

it('creates, processes in virtual time, reads and exports', async () => {
  const headers = { 'x-api-key': ACME.key, 'content-type': 'application/json' };
  const c = await fetch(`${BASE}/api/v1/real-call-sessions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      transcript: 'We discussed the budget today.',
      meetingName: 'x',
      email: ACME.rep.email,
    }),
  });
  const created = (await spec.expectResponse('createRealCallSession', c)) as { id: string };
  clock.advance(1000);
  const g = await fetch(`${BASE}/api/v1/real-call-sessions/${created.id}`, { headers });
  expect(((await spec.expectResponse('getRealCallSession', g)) as { state: string }).state).toBe(
    'DONE',
  );
  const e = await fetch(`${BASE}/api/v1/data-exports/users?limit=2`, { headers });
  expect(((await spec.expectResponse('exportUsers', e)) as { meta: unknown }).meta).toEqual({
    total: 3,
    page: 1,
    limit: 2,
    hasNext: true,
  });
});

it('answers 404 for the API under another path (`https://host/foo/api/v1/…`), as the real service', async () => {
  const headers = { 'x-api-key': ACME.key };
  const r = await fetch(`${BASE}/foo/api/v1/data-exports/users`, { headers });
  expect(r.status).toBe(404);
  expect((await r.json()).detail).toMatch(/paths start with \/api\/v1 at the root/);
  expect((await fetch(`${BASE}/api/v1/data-exports/users`, { headers })).status).toBe(200);
});

it('refuses a body over 1 MiB with 413 without a server in front', async () => {
  const r = await fetch(`${BASE}/api/v1/real-call-sessions`, {
    method: 'POST',
    headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' },
    body: 'x'.repeat(1024 * 1024 + 1),
  });
  expect(((await spec.expectResponse('createRealCallSession', r)) as { code: string }).code).toBe(
    'payload_too_large',
  );
});

it('state.reset() forgets created users and sessions', async () => {
  const r = await fetch(`${BASE}/api/v1/real-call-sessions`, {
    method: 'POST',
    headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' },
    body: JSON.stringify({
      transcript: 'We discussed the budget today.',
      meetingName: 'x',
      email: 'fresh@acme.com',
    }),
  });
  expect(r.status).toBe(201);
  expect(api.state.counts().createdUsers).toBe(1);
  api.state.reset();
  expect(api.state.counts()).toEqual({ createdUsers: 0, createdSessions: 0 });
  expect(api.state.org(ACME.org).findUserByEmail('fresh@acme.com')).toBeUndefined();
});
