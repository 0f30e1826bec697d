import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, labeledCall, readLedger, runCli, tempDir } from './helpers.js';

// Answers a service should never give, from a real server on a loopback port, to the built
// `rcs`: a body that stalls half-way (with garbage collected meanwhile), codings nested without
// end, raw deflate, and 2xx bodies that are not what the contract promises.

const ID = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const REP = 'rep@acme.example';
const GC = fileURLToPath(new URL('./support/collect-garbage.mjs', import.meta.url));

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: http.Server[] = [];

beforeAll(() => assertBuilt());
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function session(state = 'PENDING') {
  return {
    id: ID,
    type: 'REAL_CALL',
    state,
    language: 'en',
    completed: state === 'DONE',
    userId: '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f',
    participantUserIds: [],
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: '2026-01-01T00:00:00Z',
  };
}

/** `rcs ARGS` against `base`, with the garbage collector running every few milliseconds. */
function rcs(base: string, args: string[], env: Record<string, string> = {}, cwd = tempDir()) {
  return runCli(args, {
    cwd,
    command: [process.execPath, '--expose-gc', '--import', GC],
    env: { RCS_BASE_URL: base, RCS_API_KEY: 'k', ...env },
  });
}

describe('a stalled or hostile body ends at the deadline', () => {
  it('20 MB then a stall: --timeout ends it, however often garbage is collected', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"x","padding":"');
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        // Then nothing more, the connection open: a server stuck mid-body.
        while (sent < 20) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const r = await rcs(base, ['sessions', 'get', ID], { RCS_NETWORK_TIMEOUT: '3' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe(
      `rcs: no answer within 3 s from ${base}/api/v1/real-call-sessions/${ID}; check your network, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`,
    );
  }, 60_000);

  it('2,000 nested gzip layers are refused, not unwrapped', async () => {
    let body = Buffer.from(JSON.stringify(session()));
    for (let i = 0; i < 2_000; i++) body = zlib.gzipSync(body, { level: 1 });
    const base = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': Array.from({ length: 2_000 }, () => 'gzip').join(', '),
      });
      res.end(body);
    });
    const r = await rcs(base, ['sessions', 'get', ID], { RCS_NETWORK_TIMEOUT: '10' });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/too many content-encodings/);
  }, 60_000);

  it('a raw deflate answer (RFC 1951, no zlib header) is read', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      res.end(zlib.deflateRawSync(JSON.stringify(session('DONE'))));
    });
    const r = await rcs(base, ['sessions', 'get', ID, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: ID, state: 'DONE' });
  }, 60_000);
});

describe('a 2xx answer that is not a session', () => {
  it.each(['{}', 'null', '[]'])(
    'sessions get answered %s: one line naming the endpoint and the request id',
    async (body) => {
      const base = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-7' });
        res.end(body);
      });
      const r = await rcs(base, ['sessions', 'get', ID]);
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/Cannot read properties/);
      expect(r.stderr.trim()).toBe(
        `rcs: GET ${base}/api/v1/real-call-sessions/${ID} answered 200 with ${body}, not a session with an id and a state: the service broke its contract (request id req-7)`,
      );
    },
    60_000,
  );

  it('upload --wait: a read during the wait answered null ends it with the same line', async () => {
    const base = await serve((req, res) => {
      res.writeHead(req.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
        'x-request-id': req.method === 'POST' ? 'req-create' : 'req-read',
      });
      res.end(req.method === 'POST' ? JSON.stringify(session()) : 'null');
    });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'call.srt'), labeledCall(REP, 1));
    const r = await rcs(base, ['upload', 'call.srt', '--email', REP, '--wait'], {}, cwd);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/Cannot read properties/);
    expect(r.stderr).toContain(
      `GET ${base}/api/v1/real-call-sessions/${ID} answered 200 with null, not a session with an id and a state: the service broke its contract (request id req-read)`,
    );
  }, 60_000);

  it('upload: a create answered {} may have created a session: recorded as unknown, not sent again blindly', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-create' });
      res.end('{}');
    });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'call.srt'), labeledCall(REP, 2));
    const r = await rcs(base, ['upload', 'call.srt', '--email', REP], {}, cwd);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `POST ${base}/api/v1/real-call-sessions answered 201 with {}, not a session with an id and a state: the service broke its contract (request id req-create)`,
    );
    expect(readLedger(join(cwd, '.rcs-ledger.jsonl')).map((l) => l.status)).toEqual(['unknown']);
  }, 60_000);
});
