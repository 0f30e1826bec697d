import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createRcsClient } from '@rcs/client';
import { makeRedactor } from '@rcs/client/internal';
import { openTelemetry } from '@rcs/client/otel';
import { type AnswerRecord, type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { safeUrl } from '../src/request-span.js';

// The SDK's spans over OpenTelemetry, against a real `rcs mock` on loopback that
// reports the trace context each request carried.

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('test');
let mock: MockServer;
const answers: AnswerRecord[] = [];

beforeAll(async () => {
  // Node's async context, so that the caller's active span is the parent of the client's.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  mock = await startMockServer({
    port: 0,
    records: 300,
    processingMs: 50,
    onAnswer: (a) => answers.push(a),
  });
});
afterAll(async () => {
  context.disable();
  await mock.close();
});
beforeEach(async () => {
  await provider.forceFlush();
  exporter.reset();
  answers.length = 0;
});

/** The spans ended so far (the processor hands them over asynchronously). */
async function finished(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const traceparentOf = (s: ReadableSpan) =>
  `00-${s.spanContext().traceId}-${s.spanContext().spanId}-01`;

function client(fetch?: typeof globalThis.fetch) {
  return createRcsClient({
    baseUrl: mock.url,
    apiKey: mock.info.apiKey,
    tracing: openTelemetry({ tracer }),
    initialDelayMs: 1,
    maxDelayMs: 2,
    ...(fetch ? { fetch } : {}),
  });
}

/**
 * A client as client() makes it, and the moment it is told of its first retry: the answer that
 * caused it (a 429) is counted and handed to the rate controller by then.
 */
function clientTold(fetch: typeof globalThis.fetch) {
  let told!: () => void;
  const retrying = new Promise<void>((resolve) => {
    told = resolve;
  });
  const rcs = createRcsClient({
    baseUrl: mock.url,
    apiKey: mock.info.apiKey,
    tracing: openTelemetry({ tracer }),
    initialDelayMs: 1,
    maxDelayMs: 2,
    fetch,
    logger: { warn: (message: string) => message.startsWith('retrying ') && told() },
  });
  return { rcs, retrying };
}

describe('the SDK traces its requests with OpenTelemetry', () => {
  it('an auto-paginated export: one span, a CLIENT child per page with the conventions, and each request carried its own span as traceparent', async () => {
    const records = await tracer.startActiveSpan('caller', async (caller) => {
      const all = await client().exports.users.all({ limit: 20 }).toArray();
      caller.end();
      return all;
    });
    const spans = await finished();
    const caller = spans.find((s) => s.name === 'caller') as ReadableSpan;
    const pagination = spans.find((s) => s.name === 'rcs.export users') as ReadableSpan;
    expect(parentOf(pagination)).toBe(idOf(caller));
    expect(pagination.attributes).toMatchObject({
      'rcs.export.resource': 'users',
      'rcs.export.records': records.length,
    });
    const requests = spans.filter((s) => parentOf(s) === idOf(pagination));
    expect(requests.length).toBe(pagination.attributes['rcs.export.pages']);
    expect(requests.length).toBeGreaterThan(1);
    const port = Number(new URL(mock.url).port);
    for (const r of requests) {
      expect(r.name).toBe('GET /api/v1/data-exports/users');
      expect(r.kind).toBe(SpanKind.CLIENT);
      expect(r.spanContext().traceId).toBe(caller.spanContext().traceId);
      expect(r.attributes).toMatchObject({
        'http.request.method': 'GET',
        'url.full': expect.stringMatching(
          /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/data-exports\/users\?/,
        ),
        'server.address': '127.0.0.1',
        'server.port': port,
        'http.response.status_code': 200,
        'http.response.header.x-request-id': [expect.stringMatching(/^[0-9a-f-]{36}$/)],
      });
    }
    // The mock saw exactly these spans as the parents of its work, and named them by request id.
    expect(answers.map((a) => a.traceparent).sort()).toEqual(requests.map(traceparentOf).sort());
    expect(answers.map((a) => a.requestId).sort()).toEqual(
      requests
        .map((r) => (r.attributes['http.response.header.x-request-id'] as string[])[0])
        .sort(),
    );
  });

  it("a tracing of the caller's own (ClientTracing) is told each span's kind: internal for a pagination, client for its requests", async () => {
    const started: { name: string; kind: string }[] = [];
    const span = {
      setAttributes() {},
      addEvent() {},
      fail() {},
      end() {},
      traceHeaders: () => ({}),
    };
    const own = createRcsClient({
      baseUrl: mock.url,
      apiKey: mock.info.apiKey,
      tracing: {
        startSpan(name, options) {
          started.push({ name, kind: options.kind });
          return span;
        },
      },
    });
    await own.exports.teams.all({ limit: 100 }).toArray();
    expect(started[0]).toEqual({ name: 'rcs.export teams', kind: 'internal' });
    expect(started.length).toBeGreaterThan(1);
    expect(started.slice(1).every((s) => s.kind === 'client')).toBe(true);
  });

  it.each([
    [503, '{}'],
    [429, '{"code":"rate_limited"}'],
  ])(
    'a %i then a 200: two CLIENT spans under the operation, the second with resend_count 1, each request carrying its own span; the retry an event of the operation',
    async (status, body) => {
      const sent: (string | null)[] = [];
      let calls = 0;
      const once: typeof fetch = async (input, init) => {
        const request = new Request(input, init);
        sent.push(request.headers.get('traceparent'));
        calls++;
        if (calls === 1) {
          return new Response(body, {
            status,
            headers: { 'retry-after': '0', 'x-request-id': 'r-1' },
          });
        }
        return fetch(request);
      };
      const rcs = client(once);
      await tracer.startActiveSpan('caller', async (caller) => {
        await rcs.exports.teams.list({ limit: 1 });
        caller.end();
      });
      const spans = await finished();
      const caller = spans.find((s) => s.name === 'caller') as ReadableSpan;
      const attempts = spans.filter((s) => s.kind === SpanKind.CLIENT);
      expect(attempts.map((s) => parentOf(s))).toEqual([idOf(caller), idOf(caller)]);
      const [first, second] = attempts as [ReadableSpan, ReadableSpan];
      expect(first.name).toBe('GET /api/v1/data-exports/teams');
      expect(second.name).toBe(first.name);
      // The first: its own status, an error (its type the status), no resend count.
      expect(first.attributes).toMatchObject({
        'http.request.method': 'GET',
        'url.template': '/api/v1/data-exports/teams',
        'http.response.status_code': status,
        'error.type': String(status),
        'http.response.header.x-request-id': ['r-1'],
      });
      expect(first.attributes).not.toHaveProperty('http.request.resend_count');
      expect(first.status.code).toBe(SpanStatusCode.ERROR);
      // The second: the answer that counts, the first resend.
      expect(second.attributes).toMatchObject({
        'http.response.status_code': 200,
        'http.request.resend_count': 1,
      });
      expect(second.attributes).not.toHaveProperty('error.type');
      expect(second.status.code).not.toBe(SpanStatusCode.ERROR);
      // Each request on the wire carried the traceparent of its own span; the mock saw the second.
      expect(sent).toEqual([traceparentOf(first), traceparentOf(second)]);
      expect(answers.map((a) => a.traceparent)).toEqual([traceparentOf(second)]);
      expect(second.attributes['http.response.header.x-request-id']).toEqual([
        answers[0]?.requestId,
      ]);
      // The time between them is the operation's: the retry an event of the caller's span.
      expect(caller.events.map((e) => [e.name, e.attributes])).toEqual([
        [
          'rcs.retry',
          {
            'rcs.retry.number': 1,
            'rcs.retry.reason': String(status),
            'rcs.wait.duration_ms': 0,
            'rcs.wait.source': 'retry-after',
          },
        ],
      ]);
      expect(first.events).toEqual([]);
      expect(second.events).toEqual([]);
      // The run's counts are what they were: two requests, one retry.
      expect(rcs.stats).toMatchObject({ requests: 2, retries: 1 });
    },
  );

  it('no span active: a dropped connection, then a 503, then a 200: three attempts, each retry an event of the attempt it retries', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
      if (calls === 2) return new Response('{}', { status: 503 });
      return fetch(input, init);
    };
    const rcs = client(flaky);
    await rcs.exports.teams.list({ limit: 1 });
    const attempts = await finished();
    expect(attempts.map((s) => s.kind)).toEqual([
      SpanKind.CLIENT,
      SpanKind.CLIENT,
      SpanKind.CLIENT,
    ]);
    expect(attempts.map((s) => s.parentSpanContext)).toEqual([undefined, undefined, undefined]);
    expect(attempts.map((s) => s.attributes['http.request.resend_count'])).toEqual([
      undefined,
      1,
      2,
    ]);
    expect(attempts.map((s) => s.attributes['http.response.status_code'])).toEqual([
      undefined,
      503,
      200,
    ]);
    expect(attempts.map((s) => s.attributes['error.type'])).toEqual([
      'ConnectionError',
      '503',
      undefined,
    ]);
    expect(
      attempts.map((s) =>
        s.events.map((e) => [
          e.name,
          e.attributes?.['rcs.retry.number'],
          e.attributes?.['rcs.retry.reason'],
          e.attributes?.['rcs.wait.source'],
        ]),
      ),
    ).toEqual([
      [['rcs.retry', 1, 'ConnectionError', 'backoff']],
      [['rcs.retry', 2, '503', 'backoff']],
      [],
    ]);
    for (const e of attempts.flatMap((s) => s.events)) {
      expect(e.attributes?.['rcs.wait.duration_ms']).toEqual(expect.any(Number));
    }
  });

  it('a 404: one attempt, an error with the status as its type', async () => {
    await client()
      .sessions.get('00000000-0000-4000-8000-000000000000')
      .catch(() => {});
    const [missing, ...more] = await finished();
    expect(more).toEqual([]);
    expect(missing?.name).toBe('GET /api/v1/real-call-sessions/{sessionId}');
    expect(missing?.status.code).toBe(SpanStatusCode.ERROR);
    expect(missing?.attributes).toMatchObject({
      'http.response.status_code': 404,
      'error.type': '404',
      'url.template': '/api/v1/real-call-sessions/{sessionId}',
    });
    expect(missing?.attributes).not.toHaveProperty('http.request.resend_count');
  });

  it('a request that fails for good: its span ends as an error with the error type, and the error reaches the caller', async () => {
    const refused: typeof fetch = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    const rcs = createRcsClient({
      baseUrl: mock.url,
      apiKey: mock.info.apiKey,
      tracing: openTelemetry({ tracer }),
      maxRetries: 0,
      fetch: refused,
    });
    const error = await rcs.exports.teams.list({ limit: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConnectionError' });
    const [span] = await finished();
    expect(span?.name).toBe('GET /api/v1/data-exports/teams');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('ConnectionError');
  });

  it("a request held back by the rate controller after a 429: an event with its wait, counted in the run's rate-limit wait", async () => {
    let calls = 0;
    const limitedOnce: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) {
        return new Response('{}', { status: 429, headers: { 'retry-after': '1' } });
      }
      return fetch(input, init);
    };
    const { rcs, retrying } = clientTold(limitedOnce);
    const first = rcs.exports.teams.list({ limit: 1 });
    // The second request starts once the 429 is in: the controller holds it until the pause ends.
    await retrying;
    const second = rcs.exports.teams.list({ limit: 1 });
    await Promise.all([first, second]);
    const held = (await finished())
      .flatMap((span) => span.events)
      .filter((e) => e.name === 'rcs.rate_limit.wait')
      .map((e) => e.attributes?.['rcs.wait.duration_ms'] as number);
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((ms) => ms > 0)).toBe(true);
    // The run's rate-limit wait: the 1 s the service asked for, and every hold.
    expect(rcs.stats.rateLimitWaitMs).toBe(1_000 + held.reduce((a, b) => a + b, 0));
  });

  it("inside the caller's span: the rate controller's hold is an event of that span, not of an attempt", async () => {
    let calls = 0;
    const limitedOnce: typeof fetch = async (input, init) => {
      calls++;
      if (calls === 1) {
        return new Response('{}', { status: 429, headers: { 'retry-after': '1' } });
      }
      return fetch(input, init);
    };
    const { rcs, retrying } = clientTold(limitedOnce);
    await tracer.startActiveSpan('caller', async (caller) => {
      const first = rcs.exports.teams.list({ limit: 1 });
      await retrying;
      await Promise.all([first, rcs.exports.teams.list({ limit: 1 })]);
      caller.end();
    });
    const spans = await finished();
    const caller = spans.find((s) => s.name === 'caller') as ReadableSpan;
    const attempts = spans.filter((s) => s.kind === SpanKind.CLIENT);
    // The 429, its resend and the request held back: three attempts, no event on any.
    expect(attempts.length).toBe(3);
    expect(attempts.flatMap((s) => s.events)).toEqual([]);
    const names = caller.events.map((e) => e.name);
    expect(names.filter((n) => n === 'rcs.retry')).toHaveLength(1);
    expect(names.filter((n) => n === 'rcs.rate_limit.wait').length).toBeGreaterThan(0);
    expect(names.length).toBe(names.filter((n) => n.startsWith('rcs.')).length);
  });

  it('waitUntilDone: one span whose reads are its children and whose pauses are events', async () => {
    const rcs = client();
    const rep = mock.info.repEmails[0] as string;
    const created = await rcs.sessions.create({
      transcript: `1\n00:00:01,000 --> 00:00:05,000\n${rep}: Hello, what budget do you have?\n`,
      meetingName: 'Trace',
      email: rep,
    });
    await provider.forceFlush();
    exporter.reset();
    await rcs.sessions.waitUntilDone(created.id, { initialIntervalMs: 20 });
    const spans = await finished();
    const wait = spans.find((s) => s.name === 'rcs.session.wait') as ReadableSpan;
    expect(wait.attributes).toMatchObject({
      'rcs.session.id': created.id,
      'rcs.session.state': 'DONE',
    });
    const reads = spans.filter((s) => parentOf(s) === idOf(wait));
    expect(reads.length).toBe(wait.attributes['rcs.wait.polls']);
    expect(wait.events.length).toBe(reads.length - 1);
    for (const e of wait.events) expect(e.attributes?.['rcs.wait.duration_ms']).toBeGreaterThan(0);
  });

  it('no credential in any span: not the key, not the token, not a secret of the URL', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const rcs = createRcsClient({
      baseUrl: mock.url,
      apiKey: mock.info.apiKey,
      token,
      tracing: openTelemetry({ tracer }),
      maxRetries: 0,
    });
    await rcs.exports.users.list({ limit: 1 }).catch(() => {});
    const text = JSON.stringify((await finished()).map((s) => [s.attributes, s.events, s.status]));
    expect(text).toContain('url.full');
    expect(text).not.toContain(mock.info.apiKey as string);
    expect(text).not.toContain(token);
  });

  it('url.full: user:password and secret query values are REDACTED, a known credential removed', () => {
    const redact = makeRedactor(['k-123']);
    expect(
      safeUrl('https://u:p@api.example/x?page=2&api_key=s&token=t&sig=z&q=k-123', redact),
    ).toBe(
      'https://[REDACTED]@api.example/x?page=2&api_key=REDACTED&token=REDACTED&sig=REDACTED&q=[REDACTED]',
    );
  });

  it('the global tracer is used when none is given, and a no-op one adds no traceparent', async () => {
    // No provider registered: the global tracer is a no-op; requests go out without the header.
    const rcs = createRcsClient({
      baseUrl: mock.url,
      apiKey: mock.info.apiKey,
      tracing: openTelemetry(),
    });
    await rcs.exports.teams.list({ limit: 1 });
    expect(answers.at(-1)?.traceparent).toBeUndefined();
    trace.setGlobalTracerProvider(provider);
    try {
      await context.with(context.active(), () => rcs.exports.teams.list({ limit: 1 }));
      const [span] = await finished();
      expect(answers.at(-1)?.traceparent).toBe(traceparentOf(span as ReadableSpan));
    } finally {
      trace.disable();
    }
  });

  it('the main entry never imports @opentelemetry/api: only the otel entry does', () => {
    const src = fileURLToPath(new URL('../src', import.meta.url));
    const importers = (readdirSync(src, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '@opentelemetry\//.test(readFileSync(join(src, f), 'utf8')));
    expect(importers).toEqual(['otel.ts']);
  });
});
