/**
 * Hostile bodies and arguments cost time in proportion to their size (the built `rcs` as a
 * process against a raw server on loopback). The quadratic patterns these replace took minutes
 * on these inputs, deaf to Ctrl-C meanwhile: each test waits for the process's exit, within a
 * timeout far above what the linear reading needs.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, labeledCall, runCli, startCli, tempDir } from './helpers.js';

const ID = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const REP = 'rep@acme.example';
/** A 400 whose body is 200 KB of `a-a-…`: every letter starts a would-be URL scheme. */
const HOSTILE = 'a-'.repeat(100_000);

const servers: Server[] = [];
beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a 400 with a 200 KB `a-a-…` body', () => {
  it.each([
    ['as text', 'text/plain', HOSTILE],
    ['as {"errors":[…]}', 'application/json', JSON.stringify({ errors: [HOSTILE] })],
  ])(
    '%s: sessions get --timeout 5 ends with the error at once',
    async (_name, type, body) => {
      const base = await serve((_req, res) => {
        res.writeHead(400, { 'content-type': type });
        res.end(body);
      });
      const r = await runCli(['sessions', 'get', ID, '--timeout', '5'], {
        cwd: tempDir(),
        env: { RCS_BASE_URL: base, RCS_API_KEY: 'k' },
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^rcs: .*400.*a-a-a-/);
      // What is shown is short: at most the part of the body that is read (8 KiB).
      expect(r.stderr.length).toBeLessThan(10_000);
    },
    30_000,
  );

  it('upload: Ctrl-C during the next request after it stops the run (130)', async () => {
    let posts = 0;
    let interrupt = () => {};
    const base = await serve((req, res) => {
      req.resume();
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      posts++;
      if (posts === 1) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(HOSTILE);
        return;
      }
      // The second file's create is held: the run is waiting on the network when Ctrl-C comes.
      interrupt();
    });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'a.srt'), labeledCall(REP, 1));
    writeFileSync(join(cwd, 'b.srt'), labeledCall(REP, 2));
    const run = startCli(['upload', 'a.srt', 'b.srt', '--email', REP, '--concurrency', '1'], {
      cwd,
      env: { RCS_BASE_URL: base, RCS_API_KEY: 'k' },
    });
    interrupt = () => run.child.kill('SIGINT');
    const r = await run.done;
    expect(posts).toBe(2);
    expect(r.code, r.stderr).toBe(130);
  }, 30_000);
});

describe('a hostile argument', () => {
  it('export --format "<80,000 blanks>x" is a usage error (exit 2) on one line', async () => {
    const r = await runCli(['export', 'users', '--format', `${' '.repeat(80_000)}x`], {
      cwd: tempDir(),
      env: { RCS_BASE_URL: 'http://127.0.0.1:9', RCS_API_KEY: 'k' },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^rcs: option '--format <format>' argument ' +x' is invalid/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  }, 30_000);
});
