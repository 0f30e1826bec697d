import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectedSpan,
  type Collector,
  spansOf,
  startCollector,
} from '../support/otlp-collector.js';
import {
  ACME_FIXTURE,
  assertBuilt,
  labeledCall,
  runCli,
  signalTaken,
  startCli,
  startMock,
  tempDir,
} from './helpers.js';

// End to end: real `rcs` processes traced into a loopback OTLP/HTTP collector (both
// protocols) and into --trace-file, under a caller's TRACEPARENT, against a real `rcs mock -v`
// with faults and a rate limit, whose log shows the traceparent of every request it answered.

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
// The ACME fixture's organization, its HS256 secret for bearer tokens (D22) and a rep.
const ACME_ORG = '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01';
const ACME_JWT_SECRET = 'acme-mock-secret-at-least-32-characters-long';
const ACME_REP = 'rep@acme.com';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

interface Answer {
  line: string;
  status: number;
  requestId: string;
  traceparent: string | undefined;
}

interface Mock {
  url: string;
  key: string;
  reps: string[];
  /** The -v log's answers, in order: method, path, status, request id, traceparent. */
  answers(): Answer[];
}

async function startTracedMock(args: string[]): Promise<Mock> {
  const mock = await startMock(['-v', ...args]);
  children.push(mock.child);
  return {
    url: mock.url,
    key: mock.apiKey,
    reps: mock.repEmails,
    answers: () =>
      mock
        .stderr()
        .split('\n')
        .filter((l) => / request-id=/.test(l))
        .map((line) => ({
          line,
          status: Number(/ (\d{3}) request-id=/.exec(line)?.[1]),
          requestId: /request-id=(\S+)/.exec(line)?.[1] as string,
          traceparent: /traceparent=(\S+)/.exec(line)?.[1],
        })),
  };
}

const byId = (spans: CollectedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));
const traceparentOf = (s: CollectedSpan) => `00-${s.traceId}-${s.spanId}-01`;
const isRequest = (s: CollectedSpan) => s.kind === 3; // SPAN_KIND_CLIENT
const retriesOf = (s: CollectedSpan) => s.events.filter((e) => e.name === 'rcs.retry');
const waitedOf = (e: CollectedSpan['events'][number]) =>
  Number(e.attributes['rcs.wait.duration_ms']);

/** The trace file's spans: one OTLP JSON request per line. */
function fileSpans(path: string): CollectedSpan[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((l) => spansOf(Buffer.from(l), 'json'));
}

/**
 * Each attempt's CLIENT span against the mock's log (one span per attempt on the wire, the
 * OpenTelemetry HTTP conventions): every answer the mock gave went to one span's traceparent, and
 * no span's traceparent got two. A span the mock answered has that status; one it never answered
 * failed on the wire (a dropped connection: `error.type` set, no status).
 */
function expectSeenByMock(requests: CollectedSpan[], answers: Answer[]) {
  const sent = new Set(requests.map(traceparentOf));
  for (const a of answers) expect(sent.has(a.traceparent as string), a.line).toBe(true);
  for (const s of requests) {
    const seen = answers.filter((a) => a.traceparent === traceparentOf(s)).map((a) => a.status);
    const status = s.attributes['http.response.status_code'];
    expect(seen, s.name).toEqual(status === undefined ? [] : [status]);
    if (seen.length === 0) expect(s.attributes['error.type'], s.name).toEqual(expect.any(String));
    if (Number(status) >= 400) expect(s.attributes['error.type']).toBe(String(status));
  }
}

/**
 * The attempts of each logical request, in order: CLIENT spans of one parent, method and
 * `url.full` (every page has its own; a wait's polls share one, but follow each other), by start
 * time, a new request at each span without `http.request.resend_count`. The resend counts go 1,
 * 2, … and every attempt but the last failed (a status of 400 or more, or no answer): that is why
 * it was sent again.
 */
function attemptsOf(requests: CollectedSpan[]): CollectedSpan[][] {
  const byTarget = new Map<string, CollectedSpan[]>();
  for (const s of requests) {
    const key = `${s.parentSpanId} ${s.attributes['http.request.method']} ${s.attributes['url.full']}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), s]);
  }
  const out: CollectedSpan[][] = [];
  for (const spans of byTarget.values()) {
    spans.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
    for (const s of spans) {
      if (s.attributes['http.request.resend_count'] === undefined) out.push([s]);
      else out[out.length - 1]?.push(s);
    }
  }
  for (const g of out) {
    expect(g.map((s) => s.attributes['http.request.resend_count'])).toEqual(
      g.map((_, i) => (i === 0 ? undefined : i)),
    );
    for (const s of g.slice(0, -1)) expect(s.attributes['error.type'], s.name).toBeDefined();
  }
  return out;
}

/**
 * A front for the mock that answers the first request itself with `status` (Retry-After: 0) and
 * passes every later one to the mock: a deterministic retry. Records each request's traceparent.
 */
async function flakyFront(
  target: string,
  status: number,
): Promise<{ url: string; traceparents: (string | undefined)[]; close(): Promise<void> }> {
  const traceparents: (string | undefined)[] = [];
  const server = createServer(async (req, res) => {
    traceparents.push(req.headers.traceparent as string | undefined);
    if (traceparents.length === 1) {
      res.writeHead(status, { 'content-type': 'application/problem+json', 'retry-after': '0' });
      res.end(JSON.stringify({ status, code: status === 429 ? 'rate_limited' : 'unavailable' }));
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers.set(k, v);
    }
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers });
    const body = Buffer.from(await answer.arrayBuffer());
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
      'x-request-id': answer.headers.get('x-request-id') ?? '',
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    traceparents,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// Secrets a run has and no span may carry: the collector's own bearer token (sent to it as a
// header, as OTEL_EXPORTER_OTLP_HEADERS asks) and proxy credentials (loopback never goes through
// a proxy, cli.md "Networks", so these only have to stay out of the trace).
const OTEL_TOKEN = 'otel-collector-token-5e1f0a77';
const PROXY_PASSWORD = 'proxy-password-9c2d41b0';
const PROXY = `http://proxy-user:${PROXY_PASSWORD}@127.0.0.1:9`;
const secretEnv = {
  OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${OTEL_TOKEN}`,
  HTTPS_PROXY: PROXY,
  HTTP_PROXY: PROXY,
};

/** No secret in any payload the collector got, nor in the trace file; the collector's header came. */
function expectNoSecret(collector: Collector, traceFile: string, secrets: string[]) {
  expect(collector.raw.length).toBeGreaterThan(0);
  for (const r of collector.raw) expect(r.authorization).toBe(`Bearer ${OTEL_TOKEN}`);
  const texts = [
    ...collector.raw.map((r) => r.body.toString('latin1')),
    readFileSync(traceFile, 'utf8'),
  ];
  for (const secret of [...secrets, OTEL_TOKEN, PROXY_PASSWORD]) {
    for (const text of texts) expect(text.includes(secret), secret).toBe(false);
  }
}

const PROTOCOLS = [
  ['http/protobuf', /^application\/x-protobuf/],
  ['http/json', /^application\/json/],
] as const;

let collector: Collector;
beforeAll(async () => {
  assertBuilt();
  collector = await startCollector();
});
afterAll(() => collector?.close());

describe('rcs traced with OpenTelemetry', () => {
  it.each(PROTOCOLS)(
    'rcs export all over %s, faults and a rate limit on, under a caller trace: one trace, command → export → request spans, retries and rate-limit waits as events, the mock saw each span, no secret',
    async (protocol, contentType) => {
      collector.clear();
      const mock = await startTracedMock([
        '--records',
        '600',
        '--fault-rate',
        '0.15',
        // One request a second: the run's dozen pages cannot all keep under it however slowly a
        // loaded machine sends them, so a 429 comes (at 6 a second, a CPU-starved run had none).
        '--rate-limit',
        '1',
      ]);
      const dir = tempDir();
      const trace = join(dir, 'trace.jsonl');
      const r = await runCli(['export', 'all', '--out', 'out', '--json', '--trace-file', trace], {
        cwd: dir,
        env: {
          RCS_BASE_URL: mock.url,
          RCS_API_KEY: mock.key,
          TRACEPARENT,
          TRACESTATE: 'ci=1',
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_SERVICE_NAME: 'nightly-export',
          OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
          ...secretEnv,
        },
      });
      expect(r.code, r.stderr).toBe(0);
      for (const x of collector.raw) expect(x.contentType).toMatch(contentType);
      const manifest = JSON.parse(r.stdout);
      const spans = collector.spans.filter((s) => s.traceId === CALLER_TRACE);
      expect(spans.length).toBe(collector.spans.length); // one trace: the caller's
      const command = spans.find((s) => s.name === 'rcs export all') as CollectedSpan;
      expect(command.parentSpanId).toBe(CALLER_SPAN);
      expect(command.resource).toMatchObject({
        'service.name': 'nightly-export',
        'deployment.environment': 'ci',
      });
      expect(command.attributes['process.exit.code']).toBe(0);
      const exports = spans.filter((s) => s.parentSpanId === command.spanId);
      expect(exports.map((s) => s.name).sort()).toEqual(
        manifest.resources.map((e: { resource: string }) => `rcs.export ${e.resource}`).sort(),
      );
      for (const e of manifest.resources) {
        const span = exports.find((s) => s.name === `rcs.export ${e.resource}`) as CollectedSpan;
        expect(span.attributes).toMatchObject({
          'rcs.export.records': e.count,
          'rcs.export.bytes': e.bytes,
          'rcs.export.pages': e.pages,
        });
      }
      // Every request is a CLIENT span under its export, with the conventions' attributes.
      const requests = spans.filter(isRequest);
      const parents = byId(spans);
      for (const s of requests) {
        const parent = parents.get(s.parentSpanId) as CollectedSpan;
        expect(parent.parentSpanId).toBe(command.spanId);
        expect(s.name).toBe(`GET /api/v1/data-exports/${parent.name.slice('rcs.export '.length)}`);
        expect(s.attributes).toMatchObject({
          'http.request.method': 'GET',
          'server.address': '127.0.0.1',
          'server.port': Number(new URL(mock.url).port),
          'url.full': expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/data-exports\//),
        });
      }
      // The mock answered each request carrying its span's traceparent, and named it.
      const answers = mock.answers();
      expectSeenByMock(requests, answers);
      const ids = new Set(answers.map((a) => a.requestId));
      for (const s of requests) {
        const id = (s.attributes['http.response.header.x-request-id'] as string[] | undefined)?.[0];
        if (id !== undefined) expect(ids.has(id)).toBe(true);
      }
      // Faults and the rate limit: each attempt a span of its own, the retried ones failed (a
      // 429 among them); the retries and waits are events of the export they belong to.
      const attempts = attemptsOf(requests);
      const retried = attempts.filter((g) => g.length > 1);
      expect(retried.length).toBeGreaterThan(0);
      const retriedAfter429 = (g: CollectedSpan[]) =>
        g.slice(0, -1).some((s) => s.attributes['http.response.status_code'] === 429);
      expect(retried.some(retriedAfter429)).toBe(true);
      for (const s of requests) expect(s.events).toEqual([]);
      const events = exports.flatMap((s) => s.events);
      const retries = events.filter((e) => e.name === 'rcs.retry');
      expect(retries.length).toBe(requests.length - attempts.length);
      expect(retries.length).toBeGreaterThan(0);
      for (const e of retries)
        expect(e.attributes['rcs.wait.duration_ms']).toEqual(expect.any(Number));
      expect(retries.some((e) => e.attributes['rcs.retry.reason'] === '429')).toBe(true);
      expect(
        events.some(
          (e) =>
            e.name === 'rcs.rate_limit.wait' ||
            (e.name === 'rcs.retry' && e.attributes['rcs.wait.source'] === 'retry-after'),
        ),
      ).toBe(true);
      expect(requests.some((s) => Number(s.attributes['http.request.resend_count']) > 0)).toBe(
        true,
      );
      // The run summary agrees with the trace and with the mock.
      expect(manifest.summary).toMatchObject({
        requests: requests.length,
        retries: retries.length,
        rateLimited: answers.filter((a) => a.status === 429).length,
        bytesWritten: expect.any(Number),
      });
      expect(manifest.summary.rateLimitWaitMs).toBeGreaterThan(0);
      for (const e of manifest.resources)
        expect(manifest.summary.records[e.resource]).toBe(e.count);
      // The same spans in the trace file; no secret in either.
      const inFile = fileSpans(trace);
      expect(new Set(inFile.map((s) => s.spanId))).toEqual(new Set(spans.map((s) => s.spanId)));
      expectNoSecret(collector, trace, [mock.key]);
    },
    120_000,
  );

  it.each(PROTOCOLS)(
    "rcs upload --wait over %s, faults and a rate limit on, a bearer token: command → file → request spans, each file span says what its --json line says, the line's summary agrees with its spans, no secret",
    async (protocol, contentType) => {
      collector.clear();
      // Three creates at once against one request a second: 429s for sure; faults at random.
      const mock = await startTracedMock([
        '--fixture',
        ACME_FIXTURE,
        '--seed',
        '4',
        '--processing-ms',
        '300',
        '--fault-rate',
        '0.3',
        '--rate-limit',
        '1',
      ]);
      const { SignJWT } = await import('jose');
      const token = await new SignJWT({ org: ACME_ORG })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
        .sign(new TextEncoder().encode(ACME_JWT_SECRET));
      const dir = tempDir();
      const files = ['a.srt', 'b.srt', 'c.srt'];
      files.forEach((f, i) => {
        writeFileSync(join(dir, f), labeledCall(ACME_REP, i + 1));
      });
      const trace = join(dir, 'trace.jsonl');
      const r = await runCli(
        [
          'upload',
          ...files,
          '--email',
          ACME_REP,
          '--wait',
          '--json',
          '--concurrency',
          '3',
          '--trace-file',
          trace,
        ],
        {
          cwd: dir,
          env: {
            RCS_BASE_URL: mock.url,
            RCS_TOKEN: token,
            TRACEPARENT,
            OTEL_TRACES_EXPORTER: 'otlp',
            OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
            ...secretEnv,
          },
        },
      );
      // A fault may cost a file its upload (a dropped create's outcome is unknown: exit 3);
      // whatever each file's outcome, its span says it.
      expect([0, 3], r.stderr).toContain(r.code);
      for (const x of collector.raw) expect(x.contentType).toMatch(contentType);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.file).sort()).toEqual(files);
      const spans = collector.spans;
      expect(spans.every((s) => s.traceId === CALLER_TRACE)).toBe(true);
      const command = spans.find((s) => s.name === 'rcs upload') as CollectedSpan;
      expect(command.parentSpanId).toBe(CALLER_SPAN);
      expect(command.attributes['process.exit.code']).toBe(r.code);
      const parents = byId(spans);
      /** The file span a span belongs to (itself, its parent, or its parent's parent). */
      const fileOf = (s: CollectedSpan): CollectedSpan | undefined =>
        s.name === 'rcs.upload.file'
          ? s
          : parents.has(s.parentSpanId)
            ? fileOf(parents.get(s.parentSpanId) as CollectedSpan)
            : undefined;
      const requests = spans.filter(isRequest);
      for (const line of lines) {
        const file = spans.find(
          (s) => s.name === 'rcs.upload.file' && s.attributes['rcs.upload.file'] === line.file,
        ) as CollectedSpan;
        expect(file.parentSpanId).toBe(command.spanId);
        expect(file.attributes['rcs.upload.status']).toBe(line.status);
        expect(file.attributes['rcs.session.id']).toBe(line.sessionId);
        expect(file.status.code).toBe(line.status === 'failed' ? 2 : 0);
        const own = requests.filter((s) => fileOf(s) === file);
        const creates = own.filter((s) => s.name === 'POST /api/v1/real-call-sessions');
        expect(creates.length).toBeGreaterThan(0);
        for (const create of creates) expect(create.parentSpanId).toBe(file.spanId);
        if (line.session) {
          expect(file.attributes['rcs.session.state']).toBe('DONE');
          const wait = spans.find(
            (s) => s.name === 'rcs.session.wait' && s.parentSpanId === file.spanId,
          ) as CollectedSpan;
          const reads = own.filter((s) => s.parentSpanId === wait.spanId);
          expect(reads.length).toBeGreaterThan(0);
          for (const s of reads) expect(s.name).toBe('GET /api/v1/real-call-sessions/{sessionId}');
          expect(own.length).toBe(reads.length + creates.length);
        }
        // The line's summary is what this file's spans show, and what the mock saw:
        // a request for every attempt, a retry for every resend (the retry events are the
        // operation's: on the file span for the create, on the wait span for its reads).
        const operations = spans.filter((s) => (s === file || fileOf(s) === file) && !isRequest(s));
        const retries = operations.flatMap(retriesOf);
        expect(retries.length).toBe(
          own.filter((s) => s.attributes['http.request.resend_count'] !== undefined).length,
        );
        const answers = mock
          .answers()
          .filter((a) => own.some((s) => traceparentOf(s) === a.traceparent));
        const paced = operations.flatMap((s) =>
          s.events.filter((e) => e.name === 'rcs.rate_limit.wait'),
        );
        expect(line.summary).toEqual({
          requests: own.length,
          retries: retries.length,
          rateLimited: answers.filter((a) => a.status === 429).length,
          rateLimitWaitMs:
            retries
              .filter((e) => e.attributes['rcs.retry.reason'] === '429')
              .reduce((sum, e) => sum + waitedOf(e), 0) +
            paced.reduce((sum, e) => sum + waitedOf(e), 0),
          bytesSent: expect.any(Number),
          bytesReceived: expect.any(Number),
        });
        expect(line.summary.bytesSent).toBeGreaterThan(0);
      }
      expect(requests.every((s) => fileOf(s) !== undefined)).toBe(true);
      expectSeenByMock(requests, mock.answers());
      // Three creates at once over a limit of one a second: a 429 retried, its wait an event;
      // the 429 and its resend are two attempts, two spans.
      const retries = spans.flatMap(retriesOf);
      expect(retries.some((e) => e.attributes['rcs.retry.reason'] === '429')).toBe(true);
      expect(
        attemptsOf(requests).some((g) =>
          g.slice(0, -1).some((s) => s.attributes['http.response.status_code'] === 429),
        ),
      ).toBe(true);
      // The same spans in the trace file. No secret anywhere: not the token, and not the rep's
      // email, though it is in the user's own command (README "Tracing").
      expect(new Set(fileSpans(trace).map((s) => s.spanId))).toEqual(
        new Set(spans.map((s) => s.spanId)),
      );
      expectNoSecret(collector, trace, [token, token.split('.')[2] as string, ACME_REP]);
    },
    120_000,
  );

  it('Ctrl-C mid-export: exit 130, and the trace file holds the command and export spans, ended as failed', async () => {
    const mock = await startTracedMock(['--records', '2000', '--latency-ms', '400']);
    const dir = tempDir();
    const trace = join(dir, 'trace.jsonl');
    const run = startCli(['export', 'all', '--out', 'out', '--trace-file', trace], {
      cwd: dir,
      env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.key, TRACEPARENT },
    });
    // Once requests are being answered, interrupt the run.
    await expect.poll(() => mock.answers().length, { timeout: 20_000 }).toBeGreaterThan(2);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    const spans = fileSpans(trace);
    const command = spans.find((s) => s.name === 'rcs export all') as CollectedSpan;
    expect(command.parentSpanId).toBe(CALLER_SPAN);
    expect(command.attributes['process.exit.code']).toBe(130);
    expect(command.status.code).toBe(2); // STATUS_CODE_ERROR
    const exports = spans.filter((s) => s.parentSpanId === command.spanId);
    expect(exports.length).toBeGreaterThan(0);
    for (const e of exports) expect(e.status.code).toBe(2);
    expect(spans.filter(isRequest).length).toBeGreaterThan(0);
  }, 60_000);

  it.each([
    ['the graceful deadline', 1],
    ['a second signal', 2],
  ] as const)(
    'a graceful stop that cannot finish (a reader of stdout that stopped reading), ended by %s: the run still writes every span, the open ones ended as interrupted, to the trace file (and at the deadline to the collector)',
    async (_how, signals) => {
      collector.clear();
      const mock = await startTracedMock(['--records', '20000', '--latency-ms', '100']);
      const dir = tempDir();
      const trace = join(dir, 'trace.jsonl');
      // Standard output is a pipe this test never reads: once it is full, the export waits for a
      // reader that never comes, and no graceful stop can end that wait.
      const run = startCli(['export', 'real-call-sessions', '--out', '-', '--trace-file', trace], {
        cwd: dir,
        env: {
          RCS_BASE_URL: mock.url,
          RCS_API_KEY: mock.key,
          TRACEPARENT,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        },
        unreadStdout: true,
      });
      const { child } = run;
      children.push(child);
      // Stuck: the mock gets no new request for 3 s (a running export asks every ~100 ms; on a
      // busy machine a pause of a second or so is not yet a stall).
      let last = -1;
      let still = 0;
      await expect
        .poll(
          () => {
            const n = mock.answers().length;
            still = n > 2 && n === last ? still + 1 : 0;
            last = n;
            return still >= 3;
          },
          { timeout: 45_000, interval: 1_000 },
        )
        .toBe(true);
      child.kill('SIGINT');
      if (signals === 2) {
        // A second one while the stop is under way (once the first is taken, so that the two are
        // not merged): "now".
        await signalTaken(child, 'SIGINT');
        child.kill('SIGINT');
      }
      const r = await run.done;
      expect(r.signal).toBe('SIGINT'); // ended by its signal: the shell sees 130
      // Which of the two forced the exit.
      expect(/stopped after 3 s without finishing the graceful stop/.test(r.stderr)).toBe(
        signals === 1,
      );
      // The trace file parses, and holds the command span and its export, ended as interrupted.
      const spans = fileSpans(trace);
      const command = spans.find(
        (s) => s.name === 'rcs export real-call-sessions',
      ) as CollectedSpan;
      expect(command.parentSpanId).toBe(CALLER_SPAN);
      expect(command.attributes['process.exit.code']).toBe(130);
      expect(command.status).toMatchObject({ code: 2, message: 'interrupted (SIGINT)' });
      expect(command.events.map((e) => e.name)).toContain('rcs.interrupted');
      const exported = spans.find((s) => s.parentSpanId === command.spanId) as CollectedSpan;
      expect(exported.name).toBe('rcs.export real-call-sessions');
      expect(exported.status).toMatchObject({ code: 2, message: 'interrupted (SIGINT)' });
      expect(spans.filter(isRequest).length).toBeGreaterThan(0);
      // At the deadline, the collector got the same spans in the forced exit's bounded flush.
      if (signals === 1) {
        expect(new Set(collector.spans.map((s) => s.spanId))).toEqual(
          new Set(spans.map((s) => s.spanId)),
        );
      }
    },
    60_000,
  );

  it('with no OpenTelemetry variable and no --trace-file, no OpenTelemetry module is loaded; with one, it is', async () => {
    const mock = await startTracedMock([]);
    const dir = tempDir();
    // A module hook that lists every module the run loads that holds OpenTelemetry's API (its
    // global registration key, in every bundle of @opentelemetry/api; Node's in-thread hooks).
    const hook = join(dir, 'hook.mjs');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module';
import { appendFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
registerHooks({
  load(url, context, next) {
    const result = next(url, context);
    if (url.startsWith('file:') && readFileSync(fileURLToPath(url), 'utf8').includes('opentelemetry.js.api')) {
      appendFileSync(process.env.LOADED_LOG, url + '\\n');
    }
    return result;
  },
});`,
    );
    const run = (env: Record<string, string>) =>
      runCli(['export', 'teams', '--out', '-'], {
        cwd: dir,
        command: [process.execPath, '--import', hook],
        env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.key, ...env },
      });
    const plain = join(dir, 'plain.log');
    writeFileSync(plain, '');
    expect((await run({ LOADED_LOG: plain })).code).toBe(0);
    expect(readFileSync(plain, 'utf8')).toBe('');
    const traced = join(dir, 'traced.log');
    writeFileSync(traced, '');
    const r = await run({ LOADED_LOG: traced, RCS_TRACE_FILE: join(dir, 't.jsonl') });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(traced, 'utf8')).not.toBe('');
  }, 60_000);
});

describe('rcs traced: a retried request is one CLIENT span per attempt (OpenTelemetry HTTP conventions)', () => {
  it.each([[503], [429]])(
    'rcs sessions get answered %i, then 201 (D4): two CLIENT spans under the command, the second with resend_count 1, each request carrying its own span; the retry an event of the command',
    async (status) => {
      collector.clear();
      const mock = await startTracedMock([]);
      const listed = await fetch(`${mock.url}/api/v1/data-exports/real-call-sessions?limit=1`, {
        headers: { 'x-api-key': mock.key },
      });
      const id = ((await listed.json()) as { data: { id: string }[] }).data[0]?.id as string;
      const front = await flakyFront(mock.url, status);
      const dir = tempDir();
      const trace = join(dir, 'trace.jsonl');
      const r = await runCli(['sessions', 'get', id, '--json', '--trace-file', trace], {
        cwd: dir,
        env: {
          RCS_BASE_URL: front.url,
          RCS_API_KEY: mock.key,
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        },
      });
      await front.close();
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(id);
      const spans = collector.spans;
      const command = spans.find((s) => s.name === 'rcs sessions get') as CollectedSpan;
      const requests = spans.filter(isRequest);
      expect(requests.map((s) => s.parentSpanId)).toEqual([command.spanId, command.spanId]);
      const [first, second] = [...requests].sort((a, b) => (a.startNs < b.startNs ? -1 : 1)) as [
        CollectedSpan,
        CollectedSpan,
      ];
      for (const s of [first, second])
        expect(s.name).toBe('GET /api/v1/real-call-sessions/{sessionId}');
      expect(first.attributes['http.response.status_code']).toBe(status);
      expect(first.attributes['error.type']).toBe(String(status));
      expect(first.status.code).toBe(2); // STATUS_CODE_ERROR
      expect(first.attributes).not.toHaveProperty('http.request.resend_count');
      // D4: the description lists 201 as the success status of this read.
      expect(second.attributes['http.response.status_code']).toBe(201);
      expect(second.attributes['http.request.resend_count']).toBe(1);
      expect(second.attributes).not.toHaveProperty('error.type');
      expect(second.status.code).not.toBe(2);
      // What went on the wire: each attempt carried the traceparent of its own span.
      expect(front.traceparents).toEqual([traceparentOf(first), traceparentOf(second)]);
      // The wait between them is the command's event; the attempts carry none.
      expect(retriesOf(command).map((e) => e.attributes)).toEqual([
        {
          'rcs.retry.number': 1,
          'rcs.retry.reason': String(status),
          'rcs.wait.duration_ms': 0,
          'rcs.wait.source': 'retry-after',
        },
      ]);
      expect([...first.events, ...second.events]).toEqual([]);
      // The trace file has the same spans.
      expect(new Set(fileSpans(trace).map((s) => s.spanId))).toEqual(
        new Set(spans.map((s) => s.spanId)),
      );
    },
    60_000,
  );
});
