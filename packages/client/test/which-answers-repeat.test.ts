import { ConnectionError, createRcsClient, RcsError, RequestNotSentError } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { API_KEY, problem, SESSION_ID, sessionFixture } from './helpers.js';

// Each branch of the transport's retry and redirect decisions, driven through the public client
// with a `fetch` that answers from a script: which statuses are repeated for a GET and for the
// create POST, where a redirect may go, how many hops, and what a redirected POST becomes.
const BASE = 'https://rcs.test';
const SESSION_URL = `${BASE}/api/v1/real-call-sessions/${SESSION_ID}`;
const create = { transcript: 'Hello there, this is a call.', meetingName: 'Call', email: 'r@a.io' };

type Answer = Response | (() => Response | Promise<Response>) | Error;

/** A fetch that answers in turn from `answers` (the last one repeats) and records what it got. */
function scripted(answers: Answer[]) {
  const seen: {
    method: string;
    url: string;
    headers: Headers;
    body: string;
    redirect: RequestRedirect;
  }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.body ? await req.text() : '',
      redirect: req.redirect,
    });
    const a = answers[Math.min(seen.length, answers.length) - 1]!;
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a() : a.clone();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

function client(fetch: typeof globalThis.fetch, extra: Record<string, unknown> = {}) {
  return createRcsClient({
    baseUrl: BASE,
    apiKey: API_KEY,
    fetch,
    initialDelayMs: 1,
    maxDelayMs: 1,
    ...extra,
  });
}

const status = (s: number, body: unknown = problem(s, 'x', 'Failed', 'no')) =>
  new Response(JSON.stringify(body), {
    status: s,
    headers: { 'content-type': 'application/problem+json' },
  });
const session = () => Response.json(sessionFixture('DONE'));
const created = () => Response.json(sessionFixture('PENDING'), { status: 201 });
const redirect = (to: string | null, s = 302) =>
  new Response(null, { status: s, headers: to === null ? {} : { location: to } });

describe('which answers a GET repeats', () => {
  it.each([408, 429, 500, 502, 503, 504])(
    '%d is transient: repeated, then the session',
    async (s) => {
      const { fetch, seen } = scripted([status(s), session()]);
      await expect(client(fetch).sessions.get(SESSION_ID)).resolves.toMatchObject({
        id: SESSION_ID,
      });
      expect(seen).toHaveLength(2);
    },
  );

  it.each([400, 401, 403, 404, 409, 422, 501, 505])('%d is final: sent once', async (s) => {
    const { fetch, seen } = scripted([status(s), session()]);
    await expect(client(fetch).sessions.get(SESSION_ID)).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('maxRetries 0 sends once; a negative per-request value counts as 0', async () => {
    const a = scripted([status(503), session()]);
    await expect(client(a.fetch, { maxRetries: 0 }).sessions.get(SESSION_ID)).rejects.toThrow();
    expect(a.seen).toHaveLength(1);
    const b = scripted([status(503), session()]);
    await expect(client(b.fetch).sessions.get(SESSION_ID, { maxRetries: -3 })).rejects.toThrow();
    expect(b.seen).toHaveLength(1);
    const c = scripted([status(503), session()]);
    await expect(
      client(c.fetch, { maxRetries: 0 }).sessions.get(SESSION_ID, { maxRetries: 1 }),
    ).resolves.toBeDefined();
    expect(c.seen).toHaveLength(2);
  });

  it('maxRetries 2 means three attempts in all', async () => {
    const { fetch, seen } = scripted([status(500), status(500), status(500), session()]);
    await expect(client(fetch, { maxRetries: 2 }).sessions.get(SESSION_ID)).rejects.toThrow();
    expect(seen).toHaveLength(3);
  });

  it('a Retry-After exactly at the cap is waited for; one past it is not', async () => {
    const at = scripted([
      new Response('{}', { status: 503, headers: { 'retry-after': '0' } }),
      session(),
    ]);
    await client(at.fetch, { maxRetryAfterMs: 0 }).sessions.get(SESSION_ID);
    expect(at.seen).toHaveLength(2);
    const past = scripted([
      new Response('{}', { status: 503, headers: { 'retry-after': '1' } }),
      session(),
    ]);
    await expect(
      client(past.fetch, { maxRetryAfterMs: 999 }).sessions.get(SESSION_ID),
    ).rejects.toMatchObject({ status: 503 });
    expect(past.seen).toHaveLength(1);
  });
});

describe('which answers the create POST repeats (never create a session twice)', () => {
  it.each([429, 503])('%d guarantees nothing was created: repeated', async (s) => {
    const { fetch, seen } = scripted([status(s), created()]);
    await expect(client(fetch).sessions.create(create)).resolves.toMatchObject({ id: SESSION_ID });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body).toBe(seen[0]!.body);
  });

  it.each([408, 500, 504])('%d may hide a created session: not repeated', async (s) => {
    const { fetch, seen } = scripted([status(s), created()]);
    await expect(client(fetch).sessions.create(create)).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('a 502 is repeated only with the D3 code identity_provider_error', async () => {
    const idp = scripted([
      status(502, problem(502, 'identity_provider_error', 'IdP', 'x')),
      created(),
    ]);
    await expect(client(idp.fetch).sessions.create(create)).resolves.toBeDefined();
    expect(idp.seen).toHaveLength(2);

    for (const body of [problem(502, 'bad_gateway', 'x', 'y'), { title: 'gateway' }, 'not json']) {
      const other = scripted([
        new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 502 }),
        created(),
      ]);
      await expect(client(other.fetch).sessions.create(create)).rejects.toThrow();
      expect(other.seen, JSON.stringify(body)).toHaveLength(1);
    }
  });

  it('a refused connection is repeated (never sent); a reset one is not (may have arrived)', async () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    const r = scripted([refused, created()]);
    await expect(client(r.fetch).sessions.create(create)).resolves.toBeDefined();
    expect(r.seen).toHaveLength(2);

    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    const x = scripted([reset, created()]);
    const error = await client(x.fetch)
      .sessions.create(create)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveBeenCreated: true });
    expect((error as Error).message).toContain('ECONNRESET socket hang up');
    expect((error as Error).message).toContain('may have reached the service');
    expect(x.seen).toHaveLength(1);
  });

  it('a never-sent code deep in the cause chain counts (up to six levels)', async () => {
    const deep = (levels: number) => {
      let e: Error & { code?: string; cause?: unknown } = Object.assign(new Error('dns'), {
        code: 'ENOTFOUND',
      });
      for (let k = 1; k < levels; k++) e = new Error(`wrap ${k}`, { cause: e });
      return e;
    };
    const six = scripted([deep(6), created()]);
    await expect(client(six.fetch).sessions.create(create)).resolves.toBeDefined();
    expect(six.seen).toHaveLength(2);
    const seven = scripted([deep(7), created()]);
    await expect(client(seven.fetch).sessions.create(create)).rejects.toMatchObject({
      mayHaveBeenCreated: true,
    });
    expect(seven.seen).toHaveLength(1);
  });
});

describe('redirects with credentials: same origin only, at most five hops', () => {
  it('follows up to five same-origin hops with the credentials', async () => {
    const hops = [1, 2, 3, 4, 5].map((k) =>
      redirect(`${BASE}/api/v1/real-call-sessions/${SESSION_ID}?hop=${k}`),
    );
    const { fetch, seen } = scripted([...hops, session()]);
    await expect(client(fetch).sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    expect(seen).toHaveLength(6);
    for (const s of seen) expect(s.headers.get('x-api-key')).toBe(API_KEY);
  });

  it('a sixth hop is refused, naming the request', async () => {
    const loop = redirect(SESSION_URL);
    const { fetch, seen } = scripted([loop]);
    await expect(client(fetch).sessions.get(SESSION_ID)).rejects.toThrow(
      `GET ${SESSION_URL}: more than 5 redirects`,
    );
    expect(seen).toHaveLength(6);
  });

  it('a redirect without a Location, or an opaque one, is refused and not retried', async () => {
    const none = scripted([redirect(null)]);
    await expect(client(none.fetch).sessions.get(SESSION_ID)).rejects.toThrow(
      `GET ${SESSION_URL} was redirected to an unreadable location`,
    );
    expect(none.seen).toHaveLength(1);

    const opaque = () => {
      const r = new Response(null, { status: 200 });
      Object.defineProperty(r, 'type', { value: 'opaqueredirect' });
      return r;
    };
    const o = scripted([opaque, session()]);
    await expect(client(o.fetch).sessions.get(SESSION_ID)).rejects.toThrow(/unreadable location/);
    expect(o.seen).toHaveLength(1);
  });

  it('every 3xx redirect status is followed; other 3xx answers are answers', async () => {
    for (const s of [301, 302, 303, 307, 308]) {
      const { fetch, seen } = scripted([redirect(`${SESSION_URL}?moved`, s), session()]);
      await expect(client(fetch).sessions.get(SESSION_ID)).resolves.toBeDefined();
      expect(
        seen.map((x) => x.url),
        String(s),
      ).toEqual([SESSION_URL, `${SESSION_URL}?moved`]);
    }
    const notModified = scripted([new Response(null, { status: 304 }), session()]);
    await expect(client(notModified.fetch).sessions.get(SESSION_ID)).rejects.toThrow();
    expect(notModified.seen).toHaveLength(1);
  });

  it('307 and 308 repeat a POST as it was; 301, 302 and 303 turn it into a GET without a body', async () => {
    for (const s of [307, 308]) {
      const { fetch, seen } = scripted([
        redirect(`${BASE}/api/v1/real-call-sessions?again`, s),
        created(),
      ]);
      await client(fetch).sessions.create(create);
      expect(seen[1]).toMatchObject({ method: 'POST', body: seen[0]!.body });
      expect(JSON.parse(seen[1]!.body)).toMatchObject({ email: 'r@a.io' });
    }
    for (const s of [301, 302, 303]) {
      const { fetch, seen } = scripted([redirect(SESSION_URL, s), session()]);
      await client(fetch)
        .sessions.create(create)
        .catch(() => undefined);
      expect(seen[1], String(s)).toMatchObject({ method: 'GET', body: '' });
    }
  });

  it('a redirect to another origin or down to http is refused before anything is sent there', async () => {
    for (const to of ['https://elsewhere.test/x', 'http://rcs.test/x', 'https://rcs.test:8443/x']) {
      const { fetch, seen } = scripted([redirect(to), session()]);
      const error = await client(fetch)
        .sessions.get(SESSION_ID)
        .catch((e: unknown) => e);
      expect(error, to).toBeInstanceOf(RcsError);
      expect((error as Error).message).toContain(`was redirected to ${new URL(to).origin}`);
      expect(seen, to).toHaveLength(1);
    }
  });

  it('without credentials, fetch itself follows redirects (the transport does not)', async () => {
    const { fetch, seen } = scripted([session()]);
    const anonymous = createRcsClient({ baseUrl: BASE, fetch });
    await anonymous.sessions.get(SESSION_ID);
    await client(fetch).sessions.get(SESSION_ID);
    expect(seen.map((s) => s.redirect)).toEqual(['follow', 'manual']);
  });
});

describe('what every request carries, and what comes back', () => {
  it('sends the key, a bearer token and the user agent', async () => {
    const { fetch, seen } = scripted([session()]);
    await createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      token: 'jwt.a.b',
      userAgent: 'my-app/1.0',
      fetch,
    }).sessions.get(SESSION_ID);
    expect(seen[0]!.headers.get('x-api-key')).toBe(API_KEY);
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer jwt.a.b');
    expect(seen[0]!.headers.get('user-agent')).toBe('my-app/1.0');
  });

  it('a decoded body no longer carries its encoding and length headers', async () => {
    const body = JSON.stringify(sessionFixture('DONE'));
    const { fetch } = scripted([
      () =>
        new Response(body, {
          headers: {
            'content-type': 'application/json',
            'content-encoding': 'identity',
            'content-length': String(body.length),
            'x-request-id': 'req-1',
          },
        }),
    ]);
    const raw = await client(fetch).GET('/api/v1/real-call-sessions/{sessionId}', {
      params: { path: { sessionId: SESSION_ID } },
    });
    expect(raw.response.headers.get('content-encoding')).toBeNull();
    expect(raw.response.headers.get('content-length')).toBeNull();
    expect(raw.response.headers.get('x-request-id')).toBe('req-1');
  });
});

// The contract of the `fetch` option (README "A fetch of your own"): what a rejection means.
describe('what a custom fetch rejects with', () => {
  it('an RcsError stops: the caller gets it as it is, never retried', async () => {
    const refusal = new RcsError('the proxy refused the tunnel (403)');
    const r = scripted([refusal, created()]);
    const error = await client(r.fetch)
      .sessions.get(SESSION_ID)
      .catch((e: unknown) => e);
    expect(error).toBe(refusal);
    expect(r.seen).toHaveLength(1);
  });

  it('a RequestNotSentError anywhere in the chain: a create POST is sent again', async () => {
    const notSent = new TypeError('fetch failed', {
      cause: new RequestNotSentError('the proxy closed the connection'),
    });
    const r = scripted([notSent, created()]);
    await expect(client(r.fetch).sessions.create(create)).resolves.toBeDefined();
    expect(r.seen).toHaveLength(2);
  });

  it('https to a plain-http port is final: not retried, even for a GET', async () => {
    const plain = new TypeError('fetch failed', {
      cause: Object.assign(new Error('wrong version number'), { code: 'EPROTO' }),
    });
    const r = scripted([plain, created()]);
    await expect(client(r.fetch).sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(r.seen).toHaveLength(1);
  });
});
