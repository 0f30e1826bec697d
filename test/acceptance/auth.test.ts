/**
 * Authentication (description: Authentication; D2 401 with WWW-Authenticate; D22) on every
 * kind of operation, and tenancy by credential (D23).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACME,
  type Answer,
  type Booted,
  boot,
  GLOBEX,
  JWT_SECRET,
  jwt,
  PLAIN,
  type Req,
  unsignedJwt,
} from './helpers.js';

let m: Booted;
let sessionId: string;
beforeAll(async () => {
  m = await boot();
  const c = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
  sessionId = c.body.id;
});
afterAll(() => m.close());

const now = () => Math.floor(Date.now() / 1000);

/** The three kinds of operation with the same credentials. */
const ops = (o: Req): Promise<Answer>[] => [
  m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id }, o),
  m.get(sessionId, o),
  m.exp('exportUsers', '/api/v1/data-exports/users', '', o),
];

async function expect401(o: Req) {
  const before = await m.totals();
  for (const a of await Promise.all(ops(o))) {
    expect(a.status).toBe(401);
    expect(a.body.code).toBe('unauthorized');
    expect(a.headers.get('www-authenticate')).toBeTruthy();
    expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(a.contract).toEqual([]);
  }
  expect((await m.totals()).sessions).toBe(before.sessions);
}

async function expectOk(o: Req) {
  const [c, g, e] = await Promise.all(ops(o));
  expect(c?.status).toBe(201);
  expect(g?.status).toBe(201);
  expect(e?.status).toBe(200);
}

describe('401 unauthorized (D2, D22)', () => {
  it('no credentials', async () => {
    await expect401({ key: null });
  });
  it('an unknown API key', async () => {
    await expect401({ key: 'acc-acme-kez' });
  });
  it('an empty API key', async () => {
    await expect401({ key: '' });
  });
  it('an expired JWT', async () => {
    await expect401({ key: null, token: await jwt(ACME.org, { exp: now() - 60 }) });
  });
  it('an unsigned JWT (alg none)', async () => {
    await expect401({ key: null, token: unsignedJwt(ACME.org) });
  });
  it('a JWT signed with another secret', async () => {
    await expect401({
      key: null,
      token: await jwt(ACME.org, { secret: `${JWT_SECRET}-other-secret` }),
    });
  });
  it('a JWT with another algorithm (HS512) and the right secret', async () => {
    await expect401({ key: null, token: await jwt(ACME.org, { alg: 'HS512' }) });
  });
  it('a JWT for an organization that does not exist', async () => {
    await expect401({ key: null, token: await jwt('e0000000-0000-4000-8000-000000000001') });
  });
  it('a JWT without the org claim', async () => {
    const { SignJWT } = await import('jose');
    const token = await new SignJWT({ sub: 'someone' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(JWT_SECRET));
    await expect401({ key: null, token });
  });
  it('an empty bearer token', async () => {
    await expect401({ key: null, headers: { authorization: 'Bearer ' } });
  });
  it('a token that is not a JWT', async () => {
    await expect401({ key: null, token: 'not.a.jwt' });
  });
  it('both headers, a good key and a bad token', async () => {
    await expect401({ key: ACME.key, token: await jwt(ACME.org, { exp: now() - 60 }) });
  });
  it('both headers, a bad key and a good token', async () => {
    await expect401({ key: 'wrong', token: await jwt(ACME.org) });
  });
});

describe('accepted credentials (D22)', () => {
  it('the API key', async () => {
    await expectOk({});
  });
  it('a valid HS256 JWT with claim org, with and without exp', async () => {
    await expectOk({ key: null, token: await jwt(ACME.org) });
    await expectOk({ key: null, token: await jwt(ACME.org, { exp: now() + 3600 }) });
  });
  it('the auth scheme name is case-insensitive (RFC 9110): "bearer <JWT>"', async () => {
    await expectOk({ key: null, headers: { authorization: `bearer ${await jwt(ACME.org)}` } });
  });
  it('both headers valid for the same organization', async () => {
    await expectOk({ key: ACME.key, token: await jwt(ACME.org) });
  });
  it('a JWT scopes to its organization (D23)', async () => {
    const g = await m.get(sessionId, { key: null, token: await jwt(GLOBEX.org) });
    expect(g.status).toBe(404);
    const u = await m.exp('exportUsers', '/api/v1/data-exports/users', '', {
      key: null,
      token: await jwt(GLOBEX.org),
    });
    expect(u.body.data.map((x: { id: string }) => x.id)).toContain(GLOBEX.boss.id);
    expect(u.body.data.map((x: { id: string }) => x.id)).not.toContain(ACME.rep.id);
  });
});
