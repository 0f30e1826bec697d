import { connect } from 'node:net';
import { loadFixtureFile, type MockServer, startMockServer } from '@rcs/mock/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ACME, ACME_FIXTURE } from './helpers/mock-server.js';

// `rcs mock` as a server left running beside a front-end (D26): CORS, routing on the request
// line only, odd requests answered as 4xx problems, slow and departing clients, a connection cap.
// Driven over real sockets, byte for byte, as a browser, curl or a hostile client would.
const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startMockServer>[0] = {}) {
  const fixture = await loadFixtureFile(ACME_FIXTURE);
  const s = await startMockServer({ port: 0, fixture, ...options });
  servers.push(s);
  return s;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  raw: string;
}

/** Sends raw bytes and reads until the server closes or `until` matches; parses one answer. */
function raw(
  url: string,
  bytes: string,
  opts: { until?: RegExp; endAfterWrite?: boolean; timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer within ${opts.timeoutMs ?? 10_000} ms; got ${JSON.stringify(data)}`),
      );
    }, opts.timeoutMs ?? 10_000);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: rest.join('\r\n\r\n'),
        raw: data,
      });
    };
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      data += d;
      const complete =
        /\r\n\r\n/.test(data) &&
        (() => {
          const m = /content-length: (\d+)/i.exec(data);
          return m
            ? Buffer.byteLength(data.split('\r\n\r\n').slice(1).join('\r\n\r\n')) >= Number(m[1])
            : false;
        })();
      if (complete || opts.until?.test(data)) done();
    });
    socket.on('end', done);
    socket.on('error', () => done());
    socket.write(bytes);
  });
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\n${Object.entries({
    host: 'localhost',
    'x-api-key': ACME.key,
    ...headers,
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('CORS (D26)', () => {
  it('answers a real preflight with 204 and the allowed origin, methods, headers and max-age', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/api/v1/real-call-sessions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'X-API-Key, Authorization, Content-Type, traceparent, tracestate',
    );
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('every answer, problems included, carries the origin and exposes x-request-id and Retry-After', async () => {
    const s = await start();
    const ok = await fetch(`${s.url}/api/v1/data-exports/users?limit=1`, {
      headers: { origin: 'http://app.test:3000', 'x-api-key': ACME.key },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://app.test:3000');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/x-request-id.*Retry-After/i);
    const denied = await fetch(`${s.url}/api/v1/data-exports/users`, {
      headers: { origin: 'http://app.test:3000' },
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('http://app.test:3000');
    const missing = await fetch(`${s.url}/nothing`, {
      headers: { origin: 'http://app.test:3000' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('http://app.test:3000');
  });

  it('cors: false answers no CORS headers and OPTIONS is a 405 problem', async () => {
    const s = await start({ cors: false });
    const res = await fetch(`${s.url}/api/v1/data-exports/users`, {
      headers: { origin: 'http://app.test', 'x-api-key': ACME.key },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await fetch(`${s.url}/api/v1/data-exports/users`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(405);
    expect(pre.headers.get('allow')).toBe('GET, POST');
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a list of origins allows those only', async () => {
    const s = await start({ cors: { origins: ['http://localhost:5173'] } });
    const allowed = await fetch(`${s.url}/api/v1/data-exports/users`, {
      headers: { origin: 'http://localhost:5173', 'x-api-key': ACME.key },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const other = await fetch(`${s.url}/api/v1/data-exports/users`, {
      headers: { origin: 'http://evil.test', 'x-api-key': ACME.key },
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await fetch(`${s.url}/api/v1/data-exports/users`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBe(403);
    expect(await pre.json()).toMatchObject({ status: 403, code: 'origin_not_allowed' });
  });
});

describe('routing uses the request line only', () => {
  it('a Host header with a path in it does not route (it is a 400)', async () => {
    const s = await start();
    const res = await raw(
      s.url,
      get('/nothing', { host: `h/api/v1/real-call-sessions/${ACME.session}?` }),
    );
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ status: 400, code: 'bad_request' });
    expect(body.state).toBeUndefined(); // not the session
  });

  it('any valid Host reaches the same operation', async () => {
    const s = await start();
    for (const host of ['example.com', 'api.acme.test:8443', '[::1]:4010', '10.0.0.1']) {
      const res = await raw(s.url, get(`/api/v1/real-call-sessions/${ACME.session}`, { host }));
      expect(res.status, host).toBe(201); // GET of a session answers 201 (the description's contract)
      expect(JSON.parse(res.body).id).toBe(ACME.session);
    }
  });

  it('an absolute-form request target routes on its path', async () => {
    const s = await start();
    const res = await raw(
      s.url,
      get(`http://other.example/api/v1/real-call-sessions/${ACME.session}`),
    );
    expect(res.status).toBe(201);
  });
});

describe('odd requests are 4xx problems, never 500', () => {
  it('Host: a b is a 400 problem', async () => {
    const s = await start();
    const res = await raw(s.url, get('/api/v1/data-exports/users', { host: 'a b' }));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'bad_request' });
  });

  it.each(['TRACE', 'PUT', 'DELETE', 'PATCH'])('%s is a 405 problem with Allow', async (method) => {
    const s = await start();
    const res = await raw(
      s.url,
      `${method} /api/v1/data-exports/users HTTP/1.1\r\nhost: localhost\r\ncontent-length: 0\r\n\r\n`,
    );
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, POST, OPTIONS');
    expect(JSON.parse(res.body)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('a garbled request line is a 400 problem', async () => {
    const s = await start();
    const res = await raw(s.url, 'HELLO\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'bad_request' });
  });

  it('a 15,000-character query value is not echoed whole', async () => {
    const s = await start();
    const long = 'x'.repeat(15_000);
    const res = await fetch(`${s.url}/api/v1/data-exports/users?limit=${long}`, {
      headers: { 'x-api-key': ACME.key },
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(1_000);
    expect(JSON.parse(text).detail).toContain('xxxx…');
  });

  it('an unknown 15,000-character path is not echoed whole either', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/${'p'.repeat(15_000)}`);
    expect(res.status).toBe(404);
    expect((await res.text()).length).toBeLessThan(1_000);
  });
});

describe('slow, departing and too many clients', () => {
  it('a client that sends headers and part of a body gets 408 when the request timeout passes', async () => {
    const s = await start({ requestTimeoutMs: 500 });
    const res = await raw(
      s.url,
      `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nx-api-key: ${ACME.key}\r\n\r\n{"transcript":`,
      { timeoutMs: 10_000 },
    );
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toMatchObject({ status: 408, code: 'request_timeout' });
  });

  it('a client that hangs up mid-body is one log line, no stack trace', async () => {
    const lines: string[] = [];
    let logged: () => void = () => {};
    const hungUp = new Promise<void>((resolve) => {
      logged = resolve;
    });
    const s = await start({
      log: (l) => {
        lines.push(l);
        if (/hung up/.test(l)) logged();
      },
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const { port } = new URL(s.url);
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nx-api-key: ${ACME.key}\r\n\r\n{"tr`,
          );
          socket.end(() => {
            socket.destroy();
            resolve();
          });
        });
      });
      await hungUp;
    } finally {
      console.error = original;
    }
    expect(errors).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/hung up/);
  });

  it('a connection dropped by an injected fault is one log line naming the request (no request id: the client never saw one)', async () => {
    const lines: string[] = [];
    const s = await start({ log: (l) => lines.push(l), faults: { dropAfterCreate: true } });
    const body = JSON.stringify({
      transcript: 'We discussed the budget today.',
      meetingName: 'x',
      email: ACME.rep.email,
    });
    const res = await raw(
      s.url,
      `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-api-key: ${ACME.key}\r\n\r\n${body}`,
    );
    expect(res.raw).toBe(''); // closed without a byte of an answer
    expect(lines).toEqual([
      expect.stringMatching(
        /^POST "\/api\/v1\/real-call-sessions" dropped: connection closed without an answer \(an injected fault\)$/,
      ),
    ]);
  });

  it('above the connection cap a new connection gets a clear 503 and is closed', async () => {
    const s = await start({ maxConnections: 2 });
    const { port } = new URL(s.url);
    const held = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const c = connect(Number(port), '127.0.0.1', () => resolve(c));
          }),
      ),
    );
    try {
      const res = await raw(s.url, get('/api/v1/data-exports/users'));
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(JSON.parse(res.body)).toMatchObject({ code: 'service_unavailable' });
    } finally {
      // Each leaves (FIN); its connection is closed once the server has closed its side too.
      await Promise.all(held.map((c) => new Promise((closed) => c.once('close', closed).end())));
    }
    const after = await raw(s.url, get('/api/v1/data-exports/users?limit=1'));
    expect(after.status).toBe(200);
  });
});

/**
 * Writes `bytes` in one write and reads until the server closes: the status of each answer.
 * `halfClose`: the client then shuts down its sending side (FIN), as `curl` or a proxy may.
 */
function statuses(
  url: string,
  bytes: string,
  opts: { halfClose?: boolean } = {},
): Promise<number[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      data += d;
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve([...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]))),
    );
    if (opts.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

describe('HTTP/1.1 on one connection', () => {
  const close = { connection: 'close' };

  it('pipelined requests are answered, each, in order', async () => {
    const s = await start();
    expect(
      await statuses(
        s.url,
        // A header whose value is "Host" is not a second Host field.
        get('/api/v1/data-exports/teams?limit=1', { 'x-note': 'Host' }) +
          get('/api/v1/real-call-sessions/3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b') +
          get('/api/v1/data-exports/teams?limit=2', close),
      ),
    ).toEqual([200, 404, 200]);
  });

  it.each([[0], [50]])(
    'two pipelined requests, then the client half-closes (latency %i ms): both answered, in order, then the server closes',
    async (latencyMs) => {
      const s = await start({ faults: { latencyMs } });
      expect(
        await statuses(
          s.url,
          get('/api/v1/data-exports/teams?limit=1') +
            get('/api/v1/real-call-sessions/3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b'),
          { halfClose: true },
        ),
      ).toEqual([200, 404]);
    },
  );

  it('a refusal (400, 405, 404) keeps the connection for the requests behind it', async () => {
    const s = await start();
    const answers = await statuses(
      s.url,
      get('/api/v1/data-exports/teams?limit=0') +
        `TRACE /api/v1/data-exports/teams HTTP/1.1\r\nhost: localhost\r\n\r\n` +
        get('/nowhere') +
        get('/api/v1/data-exports/teams', { host: 'a b' }) +
        get('/api/v1/data-exports/teams', close),
    );
    expect(answers).toEqual([400, 405, 404, 400, 200]);
  });

  it('Expect: 100-continue behind a pipelined request: no interim 100 after its answer', async () => {
    const s = await start();
    const post = (extra: string) =>
      `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${ACME.key}\r\n` +
      `content-type: application/json\r\nexpect: 100-continue\r\ncontent-length: 2\r\n${extra}\r\n{}`;
    expect(await statuses(s.url, post('') + post('connection: close\r\n'))).toEqual([
      100, 400, 400,
    ]);
  });

  it('Expect: 100-continue with a declared body of exactly 1 MiB: the interim 100, the limit is inclusive', async () => {
    const s = await start();
    const head =
      `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${ACME.key}\r\n` +
      `content-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${1024 * 1024}\r\n\r\n`;
    const answer = await raw(s.url, head, { until: /^HTTP\/1\.1 \d{3} [^\r]*\r\n\r\n/ });
    expect(answer.status).toBe(100);
  });

  it('a GET or HEAD that carries a body is answered as without one (its body is not read)', async () => {
    const s = await start();
    const teams = '/api/v1/data-exports/teams?limit=1';
    const request = (method: string, body: string, extra = '') =>
      `${method} ${teams} HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${ACME.key}\r\n${extra}` +
      (body ? `content-length: ${body.length}\r\n\r\n${body}` : '\r\n');
    const plain = await statuses(
      s.url,
      request('GET', '') + request('HEAD', '', 'connection: close\r\n'),
    );
    const carrying = await statuses(
      s.url,
      request('GET', 'hello') + request('HEAD', 'hello', 'connection: close\r\n'),
    );
    expect(plain[0]).toBe(200);
    expect(carrying).toEqual(plain);
  });

  it('a 413 closes the connection: the rest of the body may still be coming', async () => {
    const s = await start();
    const big = `POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: localhost\r\nx-api-key: ${ACME.key}\r\ncontent-type: application/json\r\ncontent-length: 2000000\r\n\r\n${'x'.repeat(2_000_000)}`;
    expect(await statuses(s.url, big + get('/api/v1/data-exports/teams', close))).toEqual([413]);
  });

  it('two Host fields: 400 (RFC 9112 §3.2), whatever their values', async () => {
    const s = await start();
    const twice = (a: string, b: string) =>
      `GET /api/v1/data-exports/teams HTTP/1.1\r\nHost: ${a}\r\nhost: ${b}\r\nx-api-key: ${ACME.key}\r\nconnection: close\r\n\r\n`;
    expect(await statuses(s.url, twice('localhost', 'evil.example'))).toEqual([400]);
    expect(await statuses(s.url, twice('localhost', 'localhost'))).toEqual([400]);
    const one = await raw(s.url, twice('localhost', 'evil.example'));
    expect(JSON.parse(one.body)).toMatchObject({ status: 400, code: 'bad_request' });
    expect(one.body).toMatch(/2 Host header fields/);
  });
});
