import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/auth.js';
import type { Dataset, OrgData } from '../../src/dataset.js';
import { ProblemError } from '../../src/problem.js';

/** D22 through the Authenticator itself: each refusal's message and WWW-Authenticate header. */
const SECRET = 'a-jwt-secret-of-at-least-32-characters!!';
const ACME = '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01';
const GLOBEX = '1c9f6e1f-4d2b-4a6a-8e6f-3b8c7d9e0f12';
const org = (id: string, apiKeys: string[]) => ({ id, name: id, apiKeys }) as unknown as OrgData;

function authenticator(options: { jwtSecret?: string; keys?: [string, string[]][] } = {}) {
  const keys = options.keys ?? [
    [ACME, ['acme-key']],
    [GLOBEX, ['globex-key']],
  ];
  const dataset = {
    ...('jwtSecret' in options ? { jwtSecret: options.jwtSecret } : { jwtSecret: SECRET }),
    identityProvider: { existingEmails: [], refuse: {} },
    organizations: keys.map(([id, k]) => org(id, k)),
  } as Dataset;
  return new Authenticator(dataset);
}

const token = (claims: Record<string, unknown>, alg = 'HS256', secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));

async function refusal(auth: Authenticator, headers: Record<string, string>) {
  const error = await auth.authenticate(new Headers(headers)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemError);
  const problem = error as ProblemError;
  expect(problem.status).toBe(401);
  expect(problem.code).toBe('unauthorized');
  return { detail: problem.detail, challenge: problem.headers['www-authenticate'] };
}

const PLAIN = 'Bearer realm="rcs", ApiKey header="X-API-KEY"';
const INVALID_TOKEN = 'Bearer realm="rcs", error="invalid_token", ApiKey header="X-API-KEY"';

describe('Authenticator (D22)', () => {
  it('no credentials: names both ways to send them; the challenge has no token error', async () => {
    expect(await refusal(authenticator(), {})).toEqual({
      detail: 'No credentials: send an API key in X-API-KEY or a bearer token.',
      challenge: PLAIN,
    });
  });

  it('an unknown API key', async () => {
    expect(await refusal(authenticator(), { 'x-api-key': 'nope' })).toEqual({
      detail: 'Unknown API key.',
      challenge: PLAIN,
    });
  });

  it('a key and a token of different organizations', async () => {
    const t = await token({ org: GLOBEX });
    expect(
      await refusal(authenticator(), { 'x-api-key': 'acme-key', authorization: `Bearer ${t}` }),
    ).toEqual({
      detail: 'The API key and the bearer token belong to different organizations.',
      challenge: PLAIN,
    });
  });

  it('a token alone is never looked up as an API key (even a key spelt "null")', async () => {
    const auth = authenticator({
      keys: [
        [ACME, ['null']],
        [GLOBEX, ['globex-key']],
      ],
    });
    const t = await token({ org: GLOBEX });
    expect((await auth.authenticate(new Headers({ authorization: `Bearer ${t}` }))).id).toBe(
      GLOBEX,
    );
  });

  it('accepts Bearer with any case, several spaces or tabs, and trailing blanks', async () => {
    const t = await token({ org: ACME });
    for (const header of [`Bearer ${t}`, `bearer  ${t}`, `BEARER\t${t}`, `Bearer ${t} \t`]) {
      const found = await authenticator().authenticate(new Headers({ authorization: header }));
      expect(found.id, header).toBe(ACME);
    }
  });

  it('a malformed Authorization header: the whole header must be "Bearer <JWT>"', async () => {
    const t = await token({ org: ACME });
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', `xBearer ${t}`, `Bearer ${t} extra`]) {
      expect(await refusal(authenticator(), { authorization: header }), header).toEqual({
        detail: 'The Authorization header must be "Bearer <JWT>".',
        challenge: INVALID_TOKEN,
      });
    }
  });

  it('without a jwtSecret the mock takes no bearer tokens, and says so', async () => {
    const t = await token({ org: ACME });
    const auth = authenticator({ jwtSecret: undefined });
    expect(await refusal(auth, { authorization: `Bearer ${t}` })).toEqual({
      detail: 'Bearer tokens are not accepted by this mock (no jwtSecret).',
      challenge: INVALID_TOKEN,
    });
    // API keys still work.
    expect((await auth.authenticate(new Headers({ 'x-api-key': 'acme-key' }))).id).toBe(ACME);
  });

  it('only HS256: a token signed with the same secret under HS384 is refused', async () => {
    const t = await token({ org: ACME }, 'HS384');
    const { detail, challenge } = await refusal(authenticator(), { authorization: `Bearer ${t}` });
    expect(detail).toMatch(/^Invalid bearer token: .*alg/);
    expect(challenge).toBe(INVALID_TOKEN);
  });

  it('a token with a bad signature is refused with the reason', async () => {
    const t = await token({ org: ACME }, 'HS256', 'another-secret-of-at-least-32-characters');
    const { detail } = await refusal(authenticator(), { authorization: `Bearer ${t}` });
    expect(detail).toMatch(/^Invalid bearer token: signature verification failed/);
  });

  it('a token naming no known organization (claim "org" missing, unknown, not a string)', async () => {
    for (const claims of [
      { sub: 'x' },
      { org: '11111111-2222-4333-8444-555555555555' },
      { org: 7 },
    ]) {
      const t = await token(claims);
      expect(await refusal(authenticator(), { authorization: `Bearer ${t}` })).toEqual({
        detail: 'The bearer token names no known organization (claim "org").',
        challenge: INVALID_TOKEN,
      });
    }
  });
});

describe('Authenticator: keys presented again and again', () => {
  it('tells each key from the others every time it is presented', async () => {
    const auth = authenticator();
    for (let i = 0; i < 5; i++) {
      expect((await auth.authenticate(new Headers({ 'x-api-key': 'acme-key' }))).id).toBe(ACME);
      expect((await auth.authenticate(new Headers({ 'x-api-key': 'globex-key' }))).id).toBe(GLOBEX);
      expect((await refusal(auth, { 'x-api-key': 'acme-keY' })).detail).toBe('Unknown API key.');
    }
  });

  it('a caller trying many keys changes nothing: each refused, the real keys still accepted', async () => {
    const auth = authenticator();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 300; i++) {
        expect((await refusal(auth, { 'x-api-key': `wrong-${i}` })).detail).toBe(
          'Unknown API key.',
        );
      }
      expect((await auth.authenticate(new Headers({ 'x-api-key': 'acme-key' }))).id).toBe(ACME);
      expect((await auth.authenticate(new Headers({ 'x-api-key': 'globex-key' }))).id).toBe(GLOBEX);
    }
  });
});
