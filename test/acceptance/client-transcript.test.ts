/**
 * What the decisions ask of the client-side pieces: the client reads leniently (D1 any error
 * body, D4 any 2xx), D7 bounds, D9 de-duplication and completeness; the transcript package's
 * pre-validation is conservative (D17) and applies rules R4–R8 like the service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiError,
  AuthenticationError,
  createRcsClient,
  NotFoundError,
  UnprocessableError,
  WaitTimeoutError,
} from '@rcs/client';
import { prevalidateUpload } from '@rcs/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Booted, boot, GLOBEX, labeled, PLAIN } from './helpers.js';

let m: Booted;
beforeAll(async () => {
  m = await boot({ processingMs: 0, realTime: true });
});
afterAll(() => m.close());

/** A throw-away server answering every request with `answer`. */
async function rawServer(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const SESSION_ID = '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4';

describe('client against the mock', () => {
  it('creates, reads (201 accepted, D4) and waits for DONE', async () => {
    const rcs = createRcsClient({ baseUrl: m.url, apiKey: ACME.key });
    const t = labeled([
      [ACME.rep.email, 'What budget do you have?'],
      ['buyer@client.io', 'Fifty.'],
    ]);
    const created = await rcs.sessions.create({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
    });
    expect(created.state).toBe('PENDING');
    const read = await rcs.sessions.get(created.id);
    expect(read.id).toBe(created.id);
    const done = await rcs.sessions.waitUntilDone(created.id, { timeoutMs: 10_000 });
    expect(done.state).toBe('DONE');
    expect(done.participantUserIds).toEqual([ACME.rep.id]);
  });

  it('typed errors with the D3 code', async () => {
    const rcs = createRcsClient({ baseUrl: m.url, apiKey: ACME.key, maxRetries: 0 });
    const silent = labeled([
      [ACME.coach.email, 'Budget?'],
      ['buyer@client.io', 'Fifty.'],
    ]);
    const e = await rcs.sessions
      .create({ transcript: silent, meetingName: 'x', email: ACME.rep.email })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnprocessableError);
    expect((e as UnprocessableError).reason).toBe('rep_not_in_transcript');
    const nf = await rcs.sessions.get(SESSION_ID).catch((x: unknown) => x);
    expect(nf).toBeInstanceOf(NotFoundError);
    const bad = createRcsClient({ baseUrl: m.url, apiKey: 'wrong-key-value', maxRetries: 0 });
    const au = await bad.exports.users.list().catch((x: unknown) => x);
    expect(au).toBeInstanceOf(AuthenticationError);
    expect(String(au)).not.toContain('wrong-key-value');
    expect(JSON.stringify(au)).not.toContain('wrong-key-value');
  });

  it('all(): every record once, compared with meta.total (D9)', async () => {
    const rcs = createRcsClient({ baseUrl: m.url, apiKey: ACME.key });
    const users = rcs.exports.users.all({ limit: 2 });
    const list = await users.toArray();
    expect(new Set(list.map((u) => u.id)).size).toBe(list.length);
    const page = await rcs.exports.users.list({ limit: 100 });
    expect(list.length).toBe(page.meta.total);
    expect(users.stats.seen).toBe(page.meta.total);
  });

  it('tracks archived filter (D8) through the client', async () => {
    const rcs = createRcsClient({ baseUrl: m.url, apiKey: ACME.key });
    const only = await rcs.exports.tracks.list({ archived: 'only' });
    expect(only.data.map((t) => t.id)).toEqual([ACME.archivedTrack]);
  });

  it('D7 bounds are refused before any request', async () => {
    let requests = 0;
    const s = await rawServer((_req, res) => {
      requests++;
      res.writeHead(500).end();
    });
    try {
      const rcs = createRcsClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0 });
      for (const q of [{ limit: 101 }, { limit: 0 }, { page: 0 }, { page: 1.5 }]) {
        await expect(rcs.exports.users.list(q)).rejects.toThrow();
      }
      expect(requests).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('tenancy is the credential: Globex sees only its users', async () => {
    const rcs = createRcsClient({ baseUrl: m.url, apiKey: GLOBEX.key });
    const ids = (await rcs.exports.users.all().toArray()).map((u) => u.id);
    expect(ids.sort()).toEqual([GLOBEX.boss.id, GLOBEX.moved.id].sort());
  });
});

describe('client safety and waiting', () => {
  it('refuses credentials over plain http to a non-loopback host', () => {
    expect(() => createRcsClient({ baseUrl: 'http://api.example.com', apiKey: 'k' })).toThrow();
    expect(() => createRcsClient({ baseUrl: 'http://127.0.0.1:1234', apiKey: 'k' })).not.toThrow();
  });
  it('an unknown export resource name is refused, listing the nine', async () => {
    const { exportsByResource } = createRcsClient({
      baseUrl: m.url,
      apiKey: ACME.key,
    }) as unknown as {
      exportsByResource: (r: string) => unknown;
    };
    expect(() => exportsByResource('userz')).toThrow(/track-assignments/);
  });
  it('waitUntilDone gives up with WaitTimeoutError carrying the session id (D18 polling)', async () => {
    const slowMock = await boot({ processingMs: 600_000, realTime: true });
    try {
      const rcs = createRcsClient({ baseUrl: slowMock.url, apiKey: ACME.key });
      const c = await rcs.sessions.create({
        transcript: PLAIN,
        meetingName: 'x',
        userId: ACME.rep.id,
      });
      const e = await rcs.sessions
        .waitUntilDone(c.id, { timeoutMs: 600, initialIntervalMs: 50 })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(WaitTimeoutError);
      expect((e as WaitTimeoutError).sessionId).toBe(c.id);
    } finally {
      await slowMock.close();
    }
  });
});

describe('client reads leniently (D1, D4)', () => {
  const session = {
    id: SESSION_ID,
    createdAt: '2026-03-02T10:00:00Z',
    lastUpdatedAt: '2026-03-02T10:00:00Z',
    userId: ACME.rep.id,
    call: {
      id: 'c',
      createdAt: '2026-03-02T10:00:00Z',
      lastUpdatedAt: '2026-03-02T10:00:00Z',
      assistantReferenceId: 'r',
      state: 'DONE',
    },
    analysis: {
      id: 'a',
      createdAt: '2026-03-02T10:00:00Z',
      lastUpdatedAt: '2026-03-02T10:00:00Z',
      state: 'DONE',
      items: [],
      score: 10,
    },
    kpis: {
      id: 'k',
      createdAt: '2026-03-02T10:00:00Z',
      lastUpdatedAt: '2026-03-02T10:00:00Z',
      state: 'DONE',
    },
    language: 'en',
    state: 'DONE',
    completed: false,
    type: 'REAL_CALL',
  };

  it('a GET answered 200 (not 201) is a success (D4)', async () => {
    const s = await rawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session));
    });
    try {
      const rcs = createRcsClient({ baseUrl: s.url, apiKey: 'k' });
      expect((await rcs.sessions.get(SESSION_ID)).id).toBe(SESSION_ID);
    } finally {
      await s.close();
    }
  });

  const bodies: [string, number, string, string, RegExp][] = [
    ['plain text', 500, 'text/plain', 'upstream exploded', /upstream exploded/],
    [
      'an HTML page from a proxy',
      502,
      'text/html',
      '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
      /502 Bad Gateway/,
    ],
    [
      '{ message }',
      400,
      'application/json',
      JSON.stringify({ message: 'transcript too short' }),
      /transcript too short/,
    ],
    [
      '{ error }',
      404,
      'application/json',
      JSON.stringify({ error: 'no such session' }),
      /no such session/,
    ],
    ['an empty body', 503, 'text/plain', '', /503/],
    [
      'a body echoing the key',
      401,
      'application/json',
      JSON.stringify({ message: 'bad key secret-key-123' }),
      /bad key/,
    ],
  ];
  it.each(bodies)(
    'an error with %s gives a useful ApiError without secrets',
    async (_n, status, type, body, re) => {
      const s = await rawServer((_req, res) => {
        res.writeHead(status, { 'content-type': type }).end(body);
      });
      try {
        const rcs = createRcsClient({ baseUrl: s.url, apiKey: 'secret-key-123', maxRetries: 0 });
        const e = await rcs.sessions.get(SESSION_ID).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ApiError);
        expect((e as ApiError).status).toBe(status);
        expect((e as Error).message).toMatch(re);
        expect(String(e)).not.toContain('secret-key-123');
        expect(JSON.stringify(e)).not.toContain('secret-key-123');
      } finally {
        await s.close();
      }
    },
  );
});

describe('transcript pre-validation (D17, R8, D5)', () => {
  const ok = (body: Record<string, unknown>, opts = {}) => prevalidateUpload(body, opts).ok;

  it('too short by code points: 9 emoji fail, 10 pass', () => {
    expect(ok({ transcript: '😀'.repeat(9), meetingName: 'x', userId: ACME.rep.id })).toBe(false);
    expect(ok({ transcript: '😀'.repeat(10), meetingName: 'x', userId: ACME.rep.id })).toBe(true);
  });
  it('too long by UTF-16 units: 50001 emoji fail (100002 units), 100000 ASCII pass', () => {
    expect(ok({ transcript: '😀'.repeat(50_001), meetingName: 'x', userId: ACME.rep.id })).toBe(
      false,
    );
    expect(ok({ transcript: 'a'.repeat(100_000), meetingName: 'x', userId: ACME.rep.id })).toBe(
      true,
    );
    expect(ok({ transcript: 'a'.repeat(100_001), meetingName: 'x', userId: ACME.rep.id })).toBe(
      false,
    );
  });
  it('both or neither rep designators fail (D5)', () => {
    expect(ok({ transcript: PLAIN, meetingName: 'x' })).toBe(false);
    expect(
      ok({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id, email: ACME.rep.email }),
    ).toBe(false);
  });
  it('rule 8: a labeled transcript where the rep never speaks fails with rep_not_in_transcript', () => {
    const t = labeled([
      [ACME.coach.email, 'Budget?'],
      ['buyer@client.io', 'Yes.'],
    ]);
    const r = prevalidateUpload({ transcript: t, meetingName: 'x', email: ACME.rep.email }, {});
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.code)).toContain('rep_not_in_transcript');
    const speaks = prevalidateUpload(
      { transcript: t, meetingName: 'x', email: 'COACH@acme.com' },
      {},
    );
    expect(speaks.ok).toBe(true);
  });
});
