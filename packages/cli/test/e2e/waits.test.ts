/**
 * Every wait of a run under its deadline, and a blip that does not lose the night, with the built
 * `rcs` over real sockets. No test sleeps: each waits for the process to exit or for a line it
 * writes (a hang shows as the test's own timeout, far above the run's bound).
 */
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../../../../test/support/files.js';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  runCli,
  startCli,
  startMock,
  tempDir,
} from './helpers.js';

beforeAll(assertBuilt);

const servers: Server[] = [];
const mocks: MockProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const m of mocks.splice(0)) await m.stop();
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const REP = 'rep@acme.example';

describe('a Retry-After past the cap', () => {
  it.each([
    ['an hour', '3600'],
    ['a date in year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])(
    '(%s): `rcs upload --timeout 5` ends at its timeout, with no timer overflow',
    async (_, retryAfter) => {
      const url = await serve((req, res) => {
        req.resume();
        res.writeHead(429, {
          'content-type': 'application/problem+json',
          'retry-after': retryAfter,
        });
        res.end(JSON.stringify({ status: 429, code: 'rate_limited', title: 'Too Many Requests' }));
      });
      const cwd = tempDir();
      writeFileSync(join(cwd, 'a.srt'), labeledCall(REP, 1));
      writeFileSync(join(cwd, 'b.srt'), labeledCall(REP, 2));
      const run = await runCli(
        ['upload', 'a.srt', 'b.srt', '--email', REP, '--timeout', '5', '--concurrency', '1'],
        { cwd, env: { RCS_BASE_URL: url, RCS_API_KEY: 'k' } },
      );
      // The first upload gets the 429 back (its wait is past the cap); the second is held by the
      // shared pause no longer than its --timeout.
      expect(run.stderr).toContain('a.srt: the service is rate-limiting (429)');
      expect(run.stderr).toMatch(/b\.srt: no answer within 5 s/);
      expect(run.stderr).not.toContain('TimeoutOverflowWarning');
      expect(run.code).toBe(3);
    },
    120_000,
  );
});

describe('a collector that never answers', () => {
  it('holds the end of a traced run only the documented bound (2 s), whatever OTEL_EXPORTER_OTLP_TIMEOUT says', async () => {
    // It takes the connection and never answers.
    const collector = await serve(() => {});
    const cwd = tempDir();
    writeFileSync(join(cwd, 'call.srt'), labeledCall(REP, 1));
    const run = await runCli(['check', 'call.srt', '--email', REP], {
      cwd,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector,
        // An hour: the export at exit would wait it out if the bound did not apply.
        OTEL_EXPORTER_OTLP_TIMEOUT: '3600000',
      },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/tracing: the spans could not all be exported/);
  }, 120_000);
});

describe('--retry-for', () => {
  it('rides out a service that is down at the start, then comes up: one run, exit 0, complete files; or fails at the end of the window, files untouched', async () => {
    // A mock to learn the demo's port and key, and to leave a first export behind.
    const first = await startMock(['--records', '60']);
    const { url, apiKey, env } = first;
    const port = new URL(url).port;
    const cwd = tempDir();
    const out = join(cwd, 'nightly');
    expect((await runCli(['export', 'all', '--out', out], { cwd, env })).code).toBe(0);
    await first.stop();

    // Down at 02:00: the service comes back once rcs has said it is waiting for it.
    const run = startCli(['export', 'all', '--out', out, '--retry-for', '2m'], { cwd, env });
    await run.seen('stderr', 'trying again');
    const back = await startMock(['--records', '60', '--port', port]);
    mocks.push(back);
    const blip = await run.done;
    expect(blip.stderr).toMatch(
      /^rcs: GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/data-exports\/\S+: refused \(ECONNREFUSED\); trying again in [\d.]+ s, for up to [\d.]+ s more$/m,
    );
    expect(blip.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      resources: { file: string; count: number; total: number }[];
    };
    expect(manifest.resources).toHaveLength(9);
    for (const r of manifest.resources) {
      expect(r.count).toBe(r.total);
      const lines = readFileSync(join(out, r.file), 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(r.count);
    }
    await back.stop();

    // Never comes back: the window ends, the usual message, exit 1, the files as they were.
    // The settings come from the config file, and the hint says so.
    const before = await snapshot(out);
    const config = join(cwd, 'config', 'rcs');
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, 'config.json'),
      JSON.stringify({ profiles: { default: { 'base-url': url, 'retry-for': '2s' } } }),
    );
    const down = await runCli(['export', 'all', '--out', out], {
      cwd,
      env: { RCS_API_KEY: apiKey },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/trying again in/);
    expect(down.stderr).toMatch(
      new RegExp(
        `could not reach the service: connection refused \\(ECONNREFUSED\\) at .*; check base-url in the config file ${join(config, 'config.json').replaceAll('/', '\\/')} \\(profile default\\) and your network; files in .* were left as they were\\n$`,
      ),
    );
    expect(await snapshot(out)).toEqual(before);
  }, 180_000);

  it('is off by default: a wrong base URL fails fast, with no line of waiting', async () => {
    const cwd = tempDir();
    // A port nothing listens on (taken from the system, then given back).
    const url = await serve(() => {});
    await new Promise((r) => servers.pop()?.close(r));
    const run = await runCli(['export', 'users', '--out', 'x'], {
      cwd,
      env: { RCS_BASE_URL: url, RCS_API_KEY: 'k' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/trying again/);
    expect(run.stderr).toMatch(/connection refused.*; check RCS_BASE_URL and your network/);
  }, 60_000);

  it.each([
    [['--retry-for', '10 minutes'], '--retry-for'],
    [['--retry-for', '2d'], '--retry-for'],
  ])('%j is a usage error naming the flag', async (args, name) => {
    const run = await runCli(['export', 'users', '--out', 'x', ...args], {
      cwd: tempDir(),
      env: { RCS_BASE_URL: 'http://127.0.0.1:4010', RCS_API_KEY: 'k' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${name} must be a duration such as 90s, 10m or 1h`);
  });

  it('RCS_RETRY_FOR and `rcs config set retry-for` take the same durations', async () => {
    const cwd = tempDir();
    const env = { RCS_RETRY_FOR: 'soon', RCS_BASE_URL: 'http://127.0.0.1:4010', RCS_API_KEY: 'k' };
    const bad = await runCli(['export', 'users', '--out', 'x'], { cwd, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('RCS_RETRY_FOR must be a duration such as 90s, 10m or 1h');
    const refused = await runCli(['config', 'set', 'retry-for', 'later'], { cwd });
    expect(refused.code).toBe(2);
    expect((await runCli(['config', 'set', 'retry-for', '10m'], { cwd })).code).toBe(0);
    const got = await runCli(['config', 'get', 'retry-for'], { cwd });
    expect(got.stdout.trim()).toBe('10m');
  });
});
