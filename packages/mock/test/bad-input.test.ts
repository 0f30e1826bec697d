import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Acme, startAcme } from './helpers/mock-server.js';

/**
 * Bad input never gets a 500 nor hangs: always a 4xx problem body (D1, D2), nothing created,
 * and the answer matches openapi.yaml (the helper checks every answer).
 */

let m: Acme;
beforeAll(async () => {
  m = await startAcme();
});
afterAll(() => m.close());

const valid = {
  transcript: 'We discussed the budget today.',
  meetingName: 'x',
  email: ACME.rep.email,
};

async function rejected(
  r: { status: number; body: { code: string } },
  status: number,
  code: string,
) {
  expect(r.status).toBe(status);
  expect(r.body.code).toBe(code);
  expect(m.state.counts().createdSessions).toBe(0);
}

describe('request bodies', () => {
  it('malformed JSON: 400', async () => {
    for (const raw of ['{', '{"transcript": }', "{'a': 1}", 'null x', '']) {
      const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
        raw,
      });
      await rejected(r, 400, 'validation_failed');
    }
  });

  it('JSON that is not an object: 400', async () => {
    for (const raw of ['[]', 'null', '"text"', '42', 'true']) {
      const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
        raw,
      });
      await rejected(r, 400, 'validation_failed');
    }
  });

  it('wrong or missing content type, or a charset other than UTF-8: 400', async () => {
    const raw = JSON.stringify(valid);
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      null,
    ]) {
      const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
        raw,
        contentType,
      });
      await rejected(r, 400, 'validation_failed');
    }
    const ok = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
      raw,
      contentType: 'application/json; charset=UTF-8',
    });
    expect(ok.status).toBe(201);
    m.state.reset();
  });

  it('non-UTF-8 bytes: 400', async () => {
    const prefix = new TextEncoder().encode('{"transcript":"We discussed the budget ');
    const suffix = new TextEncoder().encode(`","meetingName":"x","email":"${ACME.rep.email}"}`);
    const raw = new Uint8Array([...prefix, 0xff, 0xfe, 0xc3, ...suffix]);
    const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', { raw });
    await rejected(r, 400, 'validation_failed');
    expect(r.body.errors[0].message).toMatch(/UTF-8/);
  });

  it('a body over 1 MiB: 413 before parsing (even when the JSON is broken)', async () => {
    const huge = `{"transcript":"${'a'.repeat(1024 * 1024)}`;
    const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
      raw: huge,
    });
    await rejected(r, 413, 'payload_too_large');
  });

  it('a body over 1 MiB without a declared length (chunked): 413, and the server stays usable', async () => {
    const url = new URL(`${m.server.url}/api/v1/real-call-sessions`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      for (let i = 0; i < 20; i++) req.write(chunk);
      req.end();
    });
    expect(status).toBe(413);
    expect((await m.get(ACME.session)).status).toBe(201);
  });

  it('Expect: 100-continue with a declared body over 1 MiB: 413 before the body is sent', async () => {
    const url = new URL(`${m.server.url}/api/v1/real-call-sessions`);
    const answer = await new Promise<{ status: number; sentBody: boolean }>((resolve, reject) => {
      let sentBody = false;
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          'x-api-key': ACME.key,
          'content-type': 'application/json',
          'content-length': String(2 * 1024 * 1024),
          expect: '100-continue',
        },
      });
      req.on('continue', () => {
        sentBody = true;
        req.end(Buffer.alloc(2 * 1024 * 1024, 0x61));
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, sentBody });
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 413, sentBody: false });
    expect(m.state.counts().createdSessions).toBe(0);
  });

  it('any JSON value as body: a 4xx problem or 201, never 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              transcript: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
              meetingName: fc.oneof(fc.string(), fc.constant(null)),
              email: fc.oneof(fc.emailAddress(), fc.string()),
              userId: fc.oneof(fc.uuid(), fc.string()),
              missionId: fc.oneof(fc.stringMatching(/^[0-9a-f]{24}$/), fc.string()),
            },
            { requiredKeys: [] },
          ),
        ),
        async (body) => {
          const r = await m.call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', {
            raw: JSON.stringify(body) ?? 'null',
          });
          expect([201, 400, 403, 409, 422, 502]).toContain(r.status);
        },
      ),
      { numRuns: 150 },
    );
    m.state.reset();
  });
});

describe('the HTTP layer', () => {
  it('a malformed percent-encoding in the path gets a 400 problem, not a 500', async () => {
    const statusOf = (path: string) =>
      new Promise<{ status: number; type: string }>((resolve, reject) => {
        const req = httpRequest(
          `${m.server.url}${path}`,
          { headers: { 'x-api-key': ACME.key } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) });
          },
        );
        req.on('error', reject);
        req.end();
      });
    for (const path of [`/api/v1/real-call-sessions/%E0%A4%A`, '/api/v1/%', '/%%/api/v1/x']) {
      expect(await statusOf(path)).toEqual({ status: 400, type: 'application/problem+json' });
    }
  });

  it('any path under /api/v1, escapes included: never a 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9%._~\-/]{0,40}$/), async (tail) => {
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            `${m.server.url}/api/v1/${tail}`,
            { headers: { 'x-api-key': ACME.key } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect([200, 201, 400, 404]).toContain(status);
      }),
      { numRuns: 150 },
    );
  });

  it('a malformed request line gets 400 and the server keeps serving', async () => {
    const { port, hostname } = new URL(m.server.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => {
        data += d.toString();
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect((await m.get(ACME.session)).status).toBe(201);
  });
});

describe('paths and queries', () => {
  it('an unknown path under /api/v1: 404 problem', async () => {
    const r = await fetch(`${m.server.url}/api/v1/nothing-here`, {
      headers: { 'x-api-key': ACME.key },
    });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await r.json()).code).toBe('not_found');
  });

  it('a path with a prefix before /api/v1 (a base URL with a path): 404 problem naming /api/v1, as the real service', async () => {
    for (const [method, path] of [
      ['GET', '/foo/api/v1/data-exports/users'],
      ['GET', `/api/api/v1/real-call-sessions/${ACME.session}`],
      ['POST', '/foo/api/v1/real-call-sessions'],
    ] as const) {
      const r = await fetch(`${m.server.url}${path}`, {
        method,
        headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify(valid) } : {}),
      });
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      const body = await r.json();
      expect(body).toMatchObject({ status: 404, code: 'not_found' });
      expect(body.detail).toBe(
        `No operation ${method} ${JSON.stringify(path.length > 64 ? `${path.slice(0, 64)}…` : path)}: the API's paths start with /api/v1 at the root of the service, so a base URL is the service's origin (no path before /api/v1).`,
      );
    }
    expect(m.state.counts().createdSessions).toBe(0);
    // The same paths at the root still work.
    expect((await m.get(ACME.session)).status).toBe(201);
  });

  it('any query on an export: 200 or 400, never 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (page, limit) => {
        const q = `page=${encodeURIComponent(page)}&limit=${encodeURIComponent(limit)}`;
        const r = await m.exportPage('exportTeams', '/api/v1/data-exports/teams', q);
        expect([200, 400]).toContain(r.status);
      }),
      { numRuns: 100 },
    );
  });

  it('any session id: 201, 400 or 404, never 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uuid(), fc.string({ minLength: 1 })), async (id) => {
        const r = await m.get(encodeURIComponent(id));
        expect([201, 400, 404]).toContain(r.status);
      }),
      { numRuns: 100 },
    );
  });
});
