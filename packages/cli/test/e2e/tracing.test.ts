import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CollectedSpan,
  type Collector,
  spansOf,
  startCollector,
} from '../support/otlp-collector.js';
import { assertBuilt, baseEnv, CLI, labeledCall, runCli, tempDir } from './helpers.js';

// Issue 29 end to end: real `rcs` processes traced into a loopback OTLP/HTTP collector (both
// protocols) and into --trace-file, under a caller's TRACEPARENT, against a real `rcs mock -v`
// with faults and a rate limit, whose log shows the traceparent of every request it answered.

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

interface Mock {
  url: string;
  key: string;
  reps: string[];
  /** The -v log's answers: method, path, status, request id, traceparent. */
  answers(): { line: string; requestId: string; traceparent: string | undefined }[];
}

async function startMock(args: string[]): Promise<Mock> {
  const dir = tempDir();
  const child = spawn(process.execPath, [CLI, 'mock', '--port', '0', '--json', '-v', ...args], {
    env: baseEnv(dir),
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const info = await new Promise<{ url: string; apiKey: string; repEmails: string[] }>(
    (resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] as string));
      });
      child.on('close', (code) => reject(new Error(`rcs mock exited ${code}: ${err}`)));
    },
  );
  return {
    url: info.url,
    key: info.apiKey,
    reps: info.repEmails,
    answers: () =>
      err
        .split('\n')
        .filter((l) => / request-id=/.test(l))
        .map((line) => ({
          line,
          requestId: /request-id=(\S+)/.exec(line)?.[1] as string,
          traceparent: /traceparent=(\S+)/.exec(line)?.[1],
        })),
  };
}

const byId = (spans: CollectedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));
const traceparentOf = (s: CollectedSpan) => `00-${s.traceId}-${s.spanId}-01`;
const isRequest = (s: CollectedSpan) => s.kind === 3; // SPAN_KIND_CLIENT

/** The trace file's spans: one OTLP JSON request per line. */
function fileSpans(path: string): CollectedSpan[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((l) => spansOf(Buffer.from(l), 'json'));
}

let collector: Collector;
beforeAll(async () => {
  assertBuilt();
  collector = await startCollector();
});
afterAll(() => collector?.close());

describe('rcs traced with OpenTelemetry (issue 29)', () => {
  it('rcs export all under a caller trace: one trace, command → export → request spans, retries and rate-limit waits as events, the mock saw each span, no secret', async () => {
    const mock = await startMock(['--records', '600', '--fault-rate', '0.15', '--rate-limit', '6']);
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
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_SERVICE_NAME: 'nightly-export',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
      },
    });
    expect(r.code, r.stderr).toBe(0);
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
    const sent = new Set(requests.map(traceparentOf));
    expect(answers.length).toBeGreaterThanOrEqual(requests.length);
    for (const a of answers) expect(sent.has(a.traceparent as string), a.line).toBe(true);
    expect(new Set(answers.map((a) => a.traceparent))).toEqual(sent);
    const ids = new Set(answers.map((a) => a.requestId));
    for (const s of requests) {
      const id = (s.attributes['http.response.header.x-request-id'] as string[] | undefined)?.[0];
      if (id !== undefined) expect(ids.has(id)).toBe(true);
    }
    // Faults and the rate limit: retries as events, with their waits; 429s waited out.
    const events = requests.flatMap((s) => s.events);
    const retries = events.filter((e) => e.name === 'rcs.retry');
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
    expect(requests.some((s) => Number(s.attributes['http.request.resend_count']) > 0)).toBe(true);
    // The run summary agrees with the trace.
    expect(manifest.summary).toMatchObject({
      requests: expect.any(Number),
      retries: retries.length,
      rateLimited: retries.filter((e) => e.attributes['rcs.retry.reason'] === '429').length,
      bytesWritten: expect.any(Number),
    });
    expect(manifest.summary.requests).toBe(requests.length + retries.length);
    expect(manifest.summary.rateLimitWaitMs).toBeGreaterThan(0);
    for (const e of manifest.resources) expect(manifest.summary.records[e.resource]).toBe(e.count);
    // No secret anywhere in what the collector received.
    for (const { body } of collector.raw) {
      expect(body.includes(mock.key)).toBe(false);
      expect(body.toString('latin1')).not.toContain(mock.key);
    }
    // The same spans in the trace file, and no secret there either.
    const inFile = fileSpans(trace);
    expect(new Set(inFile.map((s) => s.spanId))).toEqual(new Set(spans.map((s) => s.spanId)));
    expect(readFileSync(trace, 'utf8')).not.toContain(mock.key);
  }, 120_000);

  it('rcs upload --wait over http/json: the upload span carries the session id and its final state; the wait and its reads under it', async () => {
    collector.spans.length = 0;
    const mock = await startMock(['--processing-ms', '300', '--rate-limit', '5']);
    const dir = tempDir();
    const rep = mock.reps[0] as string;
    writeFileSync(join(dir, 'call.srt'), labeledCall(rep, 1));
    const r = await runCli(['upload', 'call.srt', '--email', rep, '--wait', '--json'], {
      cwd: dir,
      env: {
        RCS_BASE_URL: mock.url,
        RCS_API_KEY: mock.key,
        TRACEPARENT,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(collector.raw.at(-1)?.contentType).toMatch(/^application\/json/);
    const spans = collector.spans;
    const command = spans.find((s) => s.name === 'rcs upload') as CollectedSpan;
    expect(command.parentSpanId).toBe(CALLER_SPAN);
    const upload = spans.find((s) => s.name === 'rcs.upload.file') as CollectedSpan;
    expect(upload.parentSpanId).toBe(command.spanId);
    const sessionId = JSON.parse(r.stdout.trim().split('\n')[0] as string).sessionId;
    expect(upload.attributes).toMatchObject({
      'rcs.upload.file': 'call.srt',
      'rcs.upload.status': 'created',
      'rcs.session.id': sessionId,
      'rcs.session.state': 'DONE',
    });
    const create = spans.find((s) => s.name === 'POST /api/v1/real-call-sessions') as CollectedSpan;
    expect(create.parentSpanId).toBe(upload.spanId);
    expect(create.attributes['http.response.status_code']).toBe(201);
    const wait = spans.find((s) => s.name === 'rcs.session.wait') as CollectedSpan;
    expect(wait.parentSpanId).toBe(upload.spanId);
    const reads = spans.filter((s) => s.parentSpanId === wait.spanId);
    expect(reads.length).toBeGreaterThan(0);
    for (const s of reads) expect(s.name).toBe('GET /api/v1/real-call-sessions/{sessionId}');
    const sent = new Set(spans.filter(isRequest).map(traceparentOf));
    expect(new Set(mock.answers().map((a) => a.traceparent))).toEqual(sent);
    // The rep's email is in the user's own command, but no span carries it (README "Tracing").
    const text = collector.raw.map((x) => x.body.toString('utf8')).join('\n');
    expect(text).not.toContain(rep);
    expect(text).not.toContain(mock.key);
  }, 120_000);

  it('Ctrl-C mid-export: exit 130, and the trace file holds the command and export spans, ended as failed', async () => {
    const mock = await startMock(['--records', '2000', '--latency-ms', '400']);
    const dir = tempDir();
    const trace = join(dir, 'trace.jsonl');
    let child: ChildProcess | undefined;
    const done = runCli(['export', 'all', '--out', 'out', '--trace-file', trace], {
      cwd: dir,
      env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.key, TRACEPARENT },
      onSpawn: (c) => {
        child = c;
      },
    });
    // Once requests are being answered, interrupt the run.
    await expect.poll(() => mock.answers().length, { timeout: 20_000 }).toBeGreaterThan(2);
    child?.kill('SIGINT');
    const r = await done;
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

  it('with no OpenTelemetry variable and no --trace-file, no OpenTelemetry module is loaded; with one, it is', async () => {
    const mock = await startMock([]);
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
      runCommand(dir, ['--import', hook, CLI, 'export', 'teams', '--out', '-'], {
        RCS_BASE_URL: mock.url,
        RCS_API_KEY: mock.key,
        ...env,
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

function runCommand(cwd: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...baseEnv(cwd), ...env } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdout.resume();
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
