import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyNetworkFailure } from '../src/network-failure.js';
import { makeRedactor } from '../src/redact.js';
import {
  createTransport,
  isLoopbackHost,
  isUnreachable,
  type TransportConfig,
} from '../src/transport.js';

// The transport's details a user meets: which hosts count as this machine, which failures are
// "never sent" (so a create may be repeated), what each log line says, the body cap's message,
// the headers sent, and that nothing (timer, listener) outlives a request.
const URL_ = 'https://rcs.test/api/v1/x';

type Answer = Response | (() => Response) | Error;
function scripted(answers: Answer[]) {
  const seen: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(req);
    const a = answers[Math.min(seen.length, answers.length) - 1]!;
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a() : a.clone();
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

function transport(fetch: typeof globalThis.fetch, extra: Partial<TransportConfig> = {}) {
  return createTransport({
    fetch,
    apiKey: 'k-1',
    maxRetries: 2,
    timeoutMs: 5_000,
    redact: makeRedactor(['k-1']),
    maxResponseBytes: 1024 * 1024,
    initialDelayMs: 1,
    maxDelayMs: 1,
    ...extra,
  });
}

const failure = (code: string, message = 'boom') =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
const json = (status: number, body: unknown = {}, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('isLoopbackHost', () => {
  it.each([
    ['localhost', true],
    ['api.localhost', true],
    ['[::1]', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['127.0.0.1', true],
    ['127.10.20.30', true],
    ['LOCALHOST', true],
    ['a127.0.0.1', false],
    ['127.0.0.1.example.com', false],
    ['localhost.example.com', false],
    ['[::2]', false],
    // Half a bracket is no IPv6 literal: nothing is stripped.
    ['[::1x', false],
    ['x::1]', false],
    ['10.0.0.1', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('isUnreachable: nothing listens or the name resolves nowhere', () => {
  it.each([
    ['ECONNREFUSED', true],
    ['ENOTFOUND', true],
    ['EAI_AGAIN', true],
    ['ECONNRESET', false],
    ['ENETUNREACH', false],
  ])('%s → %s', (code, unreachable) => {
    expect(isUnreachable(failure(code))).toBe(unreachable);
  });
  it('an error without a code is not', () => {
    expect(isUnreachable(new Error('x'))).toBe(false);
  });
});

describe('a port that fetch blocks (the Fetch standard port blocking: 6000, 10080 …)', () => {
  it('the platform fetch refuses it before connecting; the transport fails once, not retried', async () => {
    let sent = 0;
    const counting = async (request: Request) => {
      sent++;
      return fetch(request);
    };
    const t = transport(counting as typeof globalThis.fetch, { maxRetries: 5 });
    const error = await t()(new Request('http://127.0.0.1:6000/api/v1/x')).catch((e) => e);
    expect(classifyNetworkFailure(error)).toEqual({
      kind: 'blocked-port',
      code: undefined,
      neverSent: true,
      final: true,
    });
    expect(sent).toBe(1);
  });
});

describe('a create POST after a connection failure', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH'])(
    '%s: provably never sent, so it is sent again',
    async (code) => {
      const { fetch, seen } = scripted([failure(code), json(201)]);
      const res = await transport(fetch)()(new Request(URL_, { method: 'POST', body: '{}' }));
      expect(res.status).toBe(201);
      expect(seen).toHaveLength(2);
    },
  );

  it('ECONNRESET: it may have reached the service, so it is not repeated, and the error says so', async () => {
    const { fetch, seen } = scripted([failure('ECONNRESET', 'socket hang up')]);
    const error = await transport(fetch)()(new Request(URL_, { method: 'POST', body: '{}' })).catch(
      (e: unknown) => e as Error,
    );
    expect(seen).toHaveLength(1);
    expect((error as Error).message).toBe(
      `POST ${URL_} failed: fetch failed (ECONNRESET socket hang up); the request may have reached the service, so it was not repeated`,
    );
  });

  it('a GET that fails names the cause without the create warning', async () => {
    const { fetch } = scripted([failure('ECONNRESET', 'socket hang up')]);
    const error = await transport(fetch, { maxRetries: 0 })()(new Request(URL_)).catch(
      (e: unknown) => e as Error,
    );
    expect((error as Error).message).toBe(
      `GET ${URL_} failed: fetch failed (ECONNRESET socket hang up)`,
    );
  });

  it('a cause without a code or message adds nothing; a thrown non-Error is shown as text', async () => {
    const bare = new TypeError('fetch failed', { cause: { code: 42 } });
    const a = await transport(scripted([bare]).fetch, { maxRetries: 0 })()(new Request(URL_)).catch(
      (e: unknown) => e as Error,
    );
    expect((a as Error).message).toBe(`GET ${URL_} failed: fetch failed`);
    const none = await transport(scripted([new TypeError('fetch failed')]).fetch, {
      maxRetries: 0,
    })()(new Request(URL_)).catch((e: unknown) => e as Error);
    expect([(none as Error).name, (none as Error).message]).toEqual([
      'ConnectionError',
      `GET ${URL_} failed: fetch failed`,
    ]);
    const odd = Object.assign(Object.create(null), { toString: () => 'odd thing' });
    const oddFetch = (async () => {
      throw odd;
    }) as unknown as typeof globalThis.fetch;
    const b = await transport(oddFetch, { maxRetries: 0 })()(new Request(URL_)).catch(
      (e: unknown) => e as Error,
    );
    expect((b as Error).message).toBe(`GET ${URL_} failed: odd thing`);
  });
});

describe('which answers are repeated', () => {
  it('PUT, DELETE, HEAD and OPTIONS are idempotent: a 500 is retried; a POST’s is not', async () => {
    for (const method of ['PUT', 'DELETE', 'HEAD', 'OPTIONS']) {
      const { fetch, seen } = scripted([json(500), new Response(null, { status: 204 })]);
      const res = await transport(fetch)()(new Request(URL_, { method }));
      expect([method, res.status, seen.length]).toEqual([method, 204, 2]);
    }
    const { fetch, seen } = scripted([json(500), json(201)]);
    const res = await transport(fetch)()(new Request(URL_, { method: 'POST', body: '{}' }));
    expect([res.status, seen.length]).toEqual([500, 1]);
  });

  it('a POST’s 502 is repeated only with D3’s identity_provider_error, and only as a 502', async () => {
    const idp = { code: 'identity_provider_error', status: 502 };
    const cases: [number, unknown, number][] = [
      [502, idp, 2],
      [502, { code: 'bad_gateway' }, 1],
      [500, { ...idp, status: 500 }, 1],
    ];
    for (const [status, body, calls] of cases) {
      const { fetch, seen } = scripted([json(status, body), json(201)]);
      await transport(fetch)()(new Request(URL_, { method: 'POST', body: '{}' }));
      expect([status, seen.length]).toEqual([status, calls]);
    }
  });

  it('a Retry-After above the default cap (60 s) is not waited for: the answer is returned', async () => {
    const { fetch, seen } = scripted([json(503, {}, { 'retry-after': '120' }), json(200)]);
    const res = await createTransport({
      fetch,
      maxRetries: 2,
      timeoutMs: 5_000,
      redact: makeRedactor([]),
      maxResponseBytes: 1024,
    })()(new Request(URL_));
    expect([res.status, seen.length]).toEqual([503, 1]);
  });
});

describe('logging: one line per answer, failure and retry', () => {
  it('says what was sent, what came back, and when the next try is', async () => {
    const lines: [string, string, unknown][] = [];
    const logger = {
      debug: (m: string, f?: unknown) => lines.push(['debug', m, f]),
      warn: (m: string, f?: unknown) => lines.push(['warn', m, f]),
    };
    const { fetch } = scripted([failure('ECONNRESET', 'reset'), json(503), json(200)]);
    await transport(fetch, { logger, maxDelayMs: 1, initialDelayMs: 1 })()(new Request(URL_));
    expect(lines).toEqual([
      ['debug', `GET ${URL_} failed: fetch failed (ECONNRESET reset)`, { attempt: 1 }],
      [
        'warn',
        expect.stringMatching(new RegExp(`^retrying GET ${URL_} in [01] ms \\(retry 1 of 2\\)$`)),
        { retry: 1, waitMs: expect.any(Number) },
      ],
      ['debug', `GET ${URL_} -> 503`, { status: 503, attempt: 2 }],
      [
        'warn',
        expect.stringMatching(/\(retry 2 of 2\)$/),
        { retry: 2, waitMs: expect.any(Number) },
      ],
      ['debug', `GET ${URL_} -> 200`, { status: 200, attempt: 3 }],
    ]);
    // maxDelayMs: 1 caps every wait.
    for (const [, , f] of lines) {
      if ((f as { waitMs?: number }).waitMs !== undefined)
        expect((f as { waitMs: number }).waitMs).toBeLessThanOrEqual(1);
    }
  });
});

describe('a logger may have only one of its methods', () => {
  it.each([['debug'], ['warn']])(
    'only %s: the other lines are skipped, nothing fails',
    async (only) => {
      const lines: string[] = [];
      const logger = { [only]: (m: string) => lines.push(m) };
      const { fetch, seen } = scripted([failure('ECONNRESET', 'reset'), json(503), json(200)]);
      const res = await transport(fetch, { logger })()(new Request(URL_));
      expect([res.status, seen.length]).toEqual([200, 3]);
      // The retries are warnings; each answer and each failure is a debug line.
      const expected =
        only === 'warn'
          ? [/^retrying GET .* \(retry 1 of/, /^retrying GET .* \(retry 2 of/]
          : [/reset/, /-> 503$/, /-> 200$/];
      for (const line of expected) expect(lines.some((l) => line.test(l))).toBe(true);
      for (const l of lines) expect(/^retrying/.test(l)).toBe(only === 'warn');
    },
  );
});

describe('the body cap (maxResponseBytes)', () => {
  it('a declared length over the cap is refused unread, the cap shown in MiB', async () => {
    const big = () => new Response('x', { headers: { 'content-length': String(2 * 1024 * 1024) } });
    const error = await transport(scripted([big]).fetch)()(new Request(URL_)).catch(
      (e: unknown) => e as Error,
    );
    expect((error as Error).message).toBe(
      `GET ${URL_}: the answer is larger than 1 MiB; it was not read (maxResponseBytes)`,
    );
  });

  it('a cap that is not whole MiB is shown in bytes; a length equal to the cap is read', async () => {
    const t = transport(scripted([new Response('0123456789')]).fetch, { maxResponseBytes: 10 });
    expect(await (await t()(new Request(URL_))).text()).toBe('0123456789');
    const over = transport(scripted([new Response('0123456789A')]).fetch, { maxResponseBytes: 10 });
    const error = await over()(new Request(URL_)).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/larger than 10 bytes;/);
    const mib = transport(scripted([new Response('x'.repeat(20))]).fetch, {
      maxResponseBytes: 1024 * 1024 + 1,
    });
    expect((await (await mib()(new Request(URL_))).text()).length).toBe(20);
  });

  it('a declared length equal to the cap is read', async () => {
    const exact = () => new Response('0123456789', { headers: { 'content-length': '10' } });
    const t = transport(scripted([exact]).fetch, { maxResponseBytes: 10 });
    expect(await (await t()(new Request(URL_))).text()).toBe('0123456789');
  });

  it('a declared length over the cap with no body at all is still the cap’s error', async () => {
    const empty = () =>
      new Response(null, { status: 200, headers: { 'content-length': '5000000' } });
    const error = await transport(scripted([empty]).fetch)()(new Request(URL_)).catch(
      (e: unknown) => e as Error,
    );
    expect((error as Error).message).toMatch(/larger than 1 MiB/);
  });
});

describe('the body handed on', () => {
  it('is read whole before the answer is returned, then handed on byte for byte', async () => {
    const parts = ['{"data":[', '{"id":"a"},', '{"id":"b"}', '],"meta":{"total":2}}'].map((p) =>
      new TextEncoder().encode(p),
    );
    let pulled = 0;
    const source = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            if (pulled < parts.length) c.enqueue(parts[pulled++]!);
            else c.close();
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    const res = await transport(scripted([source]).fetch)()(new Request(URL_));
    // Every chunk was read inside the request (a stalled body is a timeout, not a hang later).
    expect(pulled).toBe(parts.length);
    // The same bytes, in order.
    expect(Buffer.from(await res.clone().arrayBuffer()).toString()).toBe(
      parts.map((p) => Buffer.from(p)).join(''),
    );
    expect(await res.json()).toEqual({ data: [{ id: 'a' }, { id: 'b' }], meta: { total: 2 } });
  });

  it('bytes that are not UTF-8 reach a JSON answer’s parser as lone surrogates, any other text as U+FFFD', async () => {
    // "a", the byte 0xff (UTF-8 never has it), "b", inside a JSON string.
    const bytes = Uint8Array.from([0x22, 0x61, 0xff, 0x62, 0x22]);
    const answer = (type: string) => () =>
      new Response(bytes, { headers: { 'content-type': type } });
    const read = async (type: string) =>
      transport(scripted([answer(type)]).fetch)()(new Request(URL_));
    for (const type of ['application/json', 'application/problem+json; charset=utf-8']) {
      expect(await (await read(type)).json()).toBe('a\udcffb');
    }
    // Not JSON: the platform's decoding, with no escape written into the text.
    expect(await (await read('text/plain')).text()).toBe('"a\ufffdb"');
  });

  it('an empty body stays empty; a 204 has none', async () => {
    const empty = await transport(scripted([new Response('')]).fetch)()(new Request(URL_));
    expect(await empty.text()).toBe('');
    const none = await transport(scripted([() => new Response(null, { status: 204 })]).fetch)()(
      new Request(URL_),
    );
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();
  });
});

describe('a failed fetch in a browser page (a bare TypeError, as for a request CORS refused)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  const failing = async (error: Error, origin: string) => {
    vi.stubGlobal('location', { origin });
    const { fetch } = scripted([error]);
    return transport(fetch, { maxRetries: 0 })()(new Request(URL_)).catch((e: unknown) => e);
  };

  it('from another origin: the message says that a refused cross-origin request looks the same, and what to check', async () => {
    const error = await failing(new TypeError('Failed to fetch'), 'https://app.example');
    expect((error as Error).message).toBe(
      `GET ${URL_} failed: Failed to fetch; a cross-origin request the service refused (CORS) fails ` +
        'the same way in a browser: check that the service allows the origin https://app.example ' +
        '(its CORS allow-list; `rcs mock --cors-origin https://app.example` for the mock)',
    );
  });

  it.each([
    ['from the service’s own origin', new TypeError('Failed to fetch'), 'https://rcs.test'],
    [
      'with a cause (a network failure it can name)',
      failure('ECONNRESET', 'reset'),
      'https://a.example',
    ],
    ['that is not a TypeError', new Error('Failed to fetch'), 'https://app.example'],
  ])('%s: no such hint', async (_, thrown, origin) => {
    const error = await failing(thrown, origin);
    const said = thrown.cause ? 'fetch failed (ECONNRESET reset)' : 'Failed to fetch';
    expect((error as Error).message).toBe(`GET ${URL_} failed: ${said}`);
  });
});

describe('headers and clean-up', () => {
  it('sends only the credentials it has, and no User-Agent of its own unless given', async () => {
    const { fetch, seen } = scripted([json(200)]);
    await createTransport({
      fetch,
      token: 't-1',
      maxRetries: 0,
      timeoutMs: 1_000,
      redact: makeRedactor(['t-1']),
      maxResponseBytes: 1024,
    })()(new Request(URL_));
    expect(seen[0]!.headers.get('x-api-key')).toBeNull();
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer t-1');
    expect(seen[0]!.headers.get('user-agent')).not.toBe('undefined');
  });

  it('leaves no timer and no listener on the caller’s signal behind', async () => {
    vi.useFakeTimers();
    try {
      const caller = new AbortController();
      const { fetch } = scripted([json(200)]);
      const before = vi.getTimerCount();
      await transport(fetch)({ signal: caller.signal })(new Request(URL_));
      expect(vi.getTimerCount()).toBe(before);
      expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('redirects without credentials', () => {
  it('are fetch’s to follow: a 3xx it hands back is the answer, whatever its Location', async () => {
    const { fetch, seen } = scripted([
      new Response(null, { status: 302, headers: { location: 'https://elsewhere.test/x' } }),
    ]);
    const res = await createTransport({
      fetch,
      maxRetries: 0,
      timeoutMs: 1_000,
      redact: makeRedactor([]),
      maxResponseBytes: 1024,
    })()(new Request(URL_));
    expect([res.status, res.headers.get('location'), seen.length]).toEqual([
      302,
      'https://elsewhere.test/x',
      1,
    ]);
  });
});

describe('redirects with credentials', () => {
  it('to another origin: refused, naming the target and what to do', async () => {
    const { fetch } = scripted([
      new Response(null, { status: 302, headers: { location: 'https://elsewhere.test/x' } }),
    ]);
    const error = await transport(fetch)()(new Request(URL_)).catch((e: unknown) => e as Error);
    expect((error as Error).message).toBe(
      `GET ${URL_} was redirected to https://elsewhere.test; credentials are not sent to another origin. If that service is trusted, use it as baseUrl.`,
    );
  });
});
