import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Acme, GLOBEX, startAcme } from './helpers/mock-server.js';

/** D22 authentication and D23 tenancy, through real HTTP. */

let m: Acme;
beforeAll(async () => {
  m = await startAcme();
});
afterAll(() => m.close());

const secret = new TextEncoder().encode(ACME.secret);
const token = (claims: Record<string, unknown>, alg = 'HS256', key: Uint8Array = secret) =>
  new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt().sign(key);
const users = (o: { key?: string | null; token?: string }) =>
  m.exportPage('exportUsers', '/api/v1/data-exports/users', '', o);

async function expect401(o: { key?: string | null; token?: string }) {
  const r = await users(o);
  expect(r.status).toBe(401);
  expect(r.body.code).toBe('unauthorized');
  expect(r.headers.get('www-authenticate')).toMatch(/Bearer realm="rcs"/);
  return r;
}

describe('D22 authentication', () => {
  it('401 with WWW-Authenticate without credentials, on every operation', async () => {
    await expect401({ key: null });
    const c = await m.create(
      { transcript: 'We discussed the budget.', meetingName: 'x', email: ACME.rep.email },
      { key: null },
    );
    expect(c.status).toBe(401);
    expect(m.state.counts().createdSessions).toBe(0);
    const g = await m.get(ACME.session, { key: null });
    expect(g.status).toBe(401);
  });

  it('401 for an unknown API key, including a prefix or a case variant of a real one', async () => {
    for (const key of ['nope', ACME.key.slice(0, -1), ACME.key.toUpperCase(), `${ACME.key}x`]) {
      await expect401({ key });
    }
  });

  it('accepts the API key and an HS256 bearer token of the organization', async () => {
    expect((await users({})).status).toBe(200);
    const r = await users({
      key: null,
      token: await token({ org: ACME.org, exp: Math.floor(Date.now() / 1000) + 60 }),
    });
    expect(r.status).toBe(200);
    expect(r.body.meta.total).toBe(3);
  });

  it('401 for expired, wrongly signed, other-alg, unsigned and org-less tokens', async () => {
    const bad = [
      await token({ org: ACME.org, exp: Math.floor(Date.now() / 1000) - 60 }),
      await token(
        { org: ACME.org },
        'HS256',
        new TextEncoder().encode('another-secret-of-at-least-32-characters'),
      ),
      await token({ org: ACME.org }, 'HS512', new Uint8Array(64).fill(1)),
      new UnsecuredJWT({ org: ACME.org }).encode(),
      await token({ sub: 'x' }),
      await token({ org: '11111111-2222-4333-8444-555555555555' }),
      'not-a-jwt',
    ];
    for (const t of bad) {
      const r = await expect401({ key: null, token: t });
      expect(r.headers.get('www-authenticate')).toContain('invalid_token');
    }
  });

  it('both headers: each must be valid, and for the same organization', async () => {
    const acmeToken = await token({ org: ACME.org });
    expect((await users({ key: ACME.key, token: acmeToken })).status).toBe(200);
    await expect401({ key: 'nope', token: acmeToken });
    await expect401({ key: GLOBEX.key, token: acmeToken });
  });
});

describe('D23 tenancy: cross-tenant probes', () => {
  it("another organization's session is 404, never 403", async () => {
    const r = await m.get(ACME.session, { key: GLOBEX.key });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
    expect((await m.get(ACME.session)).status).toBe(201);
  });

  it('a session created by one organization is invisible to the other, in reads and exports', async () => {
    const c = await m.create(
      { transcript: 'We discussed the budget.', meetingName: 'x', email: GLOBEX.boss.email },
      { key: GLOBEX.key },
    );
    expect(c.status).toBe(201);
    expect((await m.get(c.body.id)).status).toBe(404);
    const acme = await m.exportPage(
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
      'limit=100',
    );
    expect(acme.body.data.map((s: { id: string }) => s.id)).not.toContain(c.body.id);
  });

  it("another organization's mission, scorecard and user cannot be referenced (422, nothing created)", async () => {
    const before = m.state.counts();
    const base = { transcript: 'We discussed the budget.', meetingName: 'x' };
    expect(
      (
        await m.create(
          { ...base, email: GLOBEX.boss.email, missionId: ACME.mission },
          { key: GLOBEX.key },
        )
      ).body.code,
    ).toBe('mission_not_found');
    expect(
      (
        await m.create(
          { ...base, email: GLOBEX.boss.email, scorecardId: ACME.scorecard },
          { key: GLOBEX.key },
        )
      ).body.code,
    ).toBe('scorecard_not_found');
    expect((await m.create({ ...base, userId: ACME.rep.id }, { key: GLOBEX.key })).body.code).toBe(
      'user_not_found',
    );
    expect(m.state.counts()).toEqual(before);
  });

  it("a bearer token's org claim scopes like an API key", async () => {
    const t = await token({ org: GLOBEX.org });
    expect((await m.get(ACME.session, { key: null, token: t })).status).toBe(404);
    const r = await users({ key: null, token: t });
    expect(r.body.data.map((u: { id: string }) => u.id)).toEqual([GLOBEX.boss.id]);
  });
});

describe('D4: reading a session answers 201', () => {
  it('with the full session shape, rejecting a malformed id with 400 and an unknown one with 404', async () => {
    const r = await m.get(ACME.session);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: ACME.session, state: 'DONE', userId: ACME.rep.id });
    expect((await m.get('not-a-uuid')).status).toBe(400);
    expect((await m.get('11111111-2222-4333-8444-555555555555')).status).toBe(404);
  });
});
