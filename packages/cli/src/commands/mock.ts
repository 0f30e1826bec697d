import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkNumber, type NumberRange, withoutTrailingSlashes } from '@rcs/client/internal';
import { readNamedFile } from '@rcs/export/internal';
import type { CliContext } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { safeLine } from '../output/sanitize.js';

export interface MockOptions {
  port?: number;
  host?: string;
  fixture?: string;
  writeFixture?: string;
  seed?: number;
  records?: number;
  day?: number;
  processingMs?: number;
  latencyMs?: number;
  faultRate?: number;
  rateLimit?: number;
  /** Share (0-1) of created sessions whose answer is lost (the connection is dropped). */
  dropAfterCreate?: number;
  /** commander's --no-cors: false when given. */
  cors?: boolean;
  corsOrigin?: string[];
}

/** D26: an origin is scheme://host[:port], exactly what a browser sends in `Origin`. */
function parseOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(
      EXIT.usage,
      `--cors-origin must be an origin such as http://localhost:5173, got "${raw}"`,
    );
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.origin !== withoutTrailingSlashes(raw)
  ) {
    throw new CliError(
      EXIT.usage,
      `--cors-origin must be an origin (scheme://host[:port], no path), got "${raw}"`,
    );
  }
  return url.origin;
}

/**
 * `rcs mock`: the mock API over real HTTP (mock-fixture.md). The first stdout line is the base URL
 * (scripts read it); with the demo dataset the next lines give the API key and rep emails. Runs
 * until SIGINT/SIGTERM, then exits 0. The mock is imported only here, so other commands start fast.
 */
export async function run(opts: MockOptions, ctx: CliContext): Promise<number> {
  // Each number flag in its range, or exit 2 naming it.
  const n = (flag: string, value: number | undefined, range: NumberRange) =>
    value === undefined ? undefined : checkNumber(flag, value, range, usageError);
  const port = n('--port', opts.port, { min: 0, max: 65535 }) ?? 4010;
  const seed = n('--seed', opts.seed, { min: 0 });
  const records = n('--records', opts.records, { min: 0, max: 10_000_000 });
  const day = n('--day', opts.day, { min: 0, max: 1000 });
  const processingMs = n('--processing-ms', opts.processingMs, { min: 0, fraction: true });
  const latencyMs = n('--latency-ms', opts.latencyMs, { min: 0, max: 600_000, fraction: true });
  const share = { min: 0, max: 1, fraction: true };
  const faultRate = n('--fault-rate', opts.faultRate, share);
  const rateLimit = n('--rate-limit', opts.rateLimit, { min: 0, fraction: true });
  const dropAfterCreate = n('--drop-after-create', opts.dropAfterCreate, share);

  if (opts.fixture !== undefined && (day !== undefined || opts.writeFixture !== undefined)) {
    throw new CliError(EXIT.usage, '--day and --write-fixture are for demo data, not --fixture');
  }
  if (opts.cors === false && opts.corsOrigin !== undefined) {
    throw new CliError(EXIT.usage, '--no-cors and --cors-origin cannot be used together');
  }
  const cors =
    opts.cors === false
      ? false
      : opts.corsOrigin !== undefined
        ? { origins: opts.corsOrigin.map(parseOrigin) }
        : true;

  const mock = await import('@rcs/mock/node');
  if (opts.writeFixture !== undefined) {
    try {
      const data = JSON.stringify(mock.generateDemoFixture({ seed, records, day }), null, 2);
      // Exclusive create: an existing file (or a link in its place) is never replaced.
      await writeFile(resolve(ctx.cwd, opts.writeFixture), `${data}\n`, { flag: 'wx' });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const why = e.code === 'EEXIST' ? 'the file exists and is never replaced' : e.message;
      throw new CliError(EXIT.usage, `--write-fixture ${opts.writeFixture}: ${why}`);
    }
    ctx.log(`Wrote ${opts.writeFixture}; serve it with: rcs mock --fixture ${opts.writeFixture}`);
    return EXIT.ok;
  }
  let fixture: unknown;
  if (opts.fixture !== undefined) {
    try {
      // At most what one string holds (V8: 2^29 characters), and a regular file only.
      fixture = await mock.loadFixtureFile(resolve(ctx.cwd, opts.fixture), async (file) =>
        (await readNamedFile(file, 2 ** 29)).toString('utf8'),
      );
    } catch (error) {
      // The loader names the JSON path of the first bad value (mock-fixture.md).
      throw new CliError(EXIT.usage, `--fixture ${opts.fixture}: ${(error as Error).message}`);
    }
  }
  let server: Awaited<ReturnType<typeof mock.startMockServer>>;
  try {
    server = await mock.startMockServer({
      port,
      host: opts.host ?? '127.0.0.1',
      fixture,
      seed,
      records,
      day,
      processingMs,
      faults: { latencyMs, faultRate, rateLimit, dropAfterCreate },
      cors,
      // A client that hangs up mid-request is normal for a server: one line, and only with -v.
      ...(ctx.verbose
        ? {
            log: (line: string) => ctx.stderr.write(`rcs mock: ${line}\n`),
            // One line per answer: what a service's access log shows, never a credential
            // (the request id, and the trace context the client sent).
            onAnswer: (a) =>
              ctx.stderr.write(
                `rcs mock: ${a.method} ${safeLine(a.target)} ${a.status} request-id=${a.requestId}` +
                  `${a.traceparent ? ` traceparent=${safeLine(a.traceparent)}` : ''}` +
                  `${a.tracestate ? ` tracestate=${safeLine(a.tracestate)}` : ''}\n`,
              ),
          }
        : {}),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      throw new CliError(
        EXIT.failure,
        `port ${port} is in use; pick another with --port N (0 = any free port)`,
      );
    }
    if (error instanceof RangeError) throw new CliError(EXIT.usage, e.message);
    throw error;
  }
  if (ctx.json) {
    // --json: one JSON document with the URL, the key and the reps, instead of the lines.
    ctx.stdout.write(
      `${JSON.stringify({
        url: server.url,
        ...(fixture === undefined
          ? { apiKey: server.info.apiKey ?? null, repEmails: server.info.repEmails }
          : {}),
      })}\n`,
    );
  }
  const lines = [server.url];
  if (fixture === undefined) {
    if (server.info.apiKey) lines.push(`API key: ${server.info.apiKey}`);
    const reps = server.info.repEmails.slice(0, 5);
    if (reps.length > 0) lines.push(`Rep emails: ${reps.join(', ')}`);
  }
  if (!ctx.json) ctx.stdout.write(`${lines.join('\n')}\n`);
  ctx.log(
    `Mock API listening. Try: RCS_BASE_URL=${server.url} RCS_API_KEY=… rcs export users --out -   (Ctrl-C stops)`,
  );
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) done();
    ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  await server.close();
  return EXIT.ok;
}
