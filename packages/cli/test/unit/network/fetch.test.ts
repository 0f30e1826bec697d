import { getEventListeners, once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { createRcsClient } from '@rcs/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createNetworkFetch } from '../../../src/network/fetch.js';

// The CLI's one HTTP stack against real servers on a loopback port, as the SDK client
// uses it: what the deleted node:http stack's tests protected, stated as behaviour.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler) {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const networkFetch = () => {
  const f = createNetworkFetch(undefined, 60_000);
  if (!f) throw new Error('on Node the CLI has its own fetch');
  return f;
};

/** A client over the CLI's fetch, as `rcs` builds it (the transport reads and caps bodies). */
const client = (baseUrl: string, more: { timeoutMs?: number } = {}) =>
  createRcsClient({ baseUrl, apiKey: 'k', fetch: networkFetch(), maxRetries: 0, ...more });

const teams = (c: ReturnType<typeof client>, signal?: AbortSignal) =>
  c.exports.teams.list({ page: 1, limit: 100, ...(signal ? { signal } : {}) });

const page = (n: number) =>
  JSON.stringify({
    data: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, name: `Team ${i}` })),
    meta: { page: 1, limit: 100, total: n, totalPages: 1 },
  });

describe('the CLI fetch (undici)', () => {
  it('sends the method, the headers and the body, and gives the answer as it came', async () => {
    let seen: { method?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const url = await serve(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      seen = { method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() };
      res.writeHead(201, [
        ['content-type', 'application/json'],
        ['x-multi', 'a'],
        ['x-multi', 'b'],
      ]);
      res.end('{"é":"😀"}');
    });
    const body = JSON.stringify({ text: 'été — 1' });
    const res = await networkFetch()(
      new Request(`${url}/x`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-KEY': 'k' },
        body,
      }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.text()).toBe('{"é":"😀"}');
    expect(seen).toMatchObject({ method: 'POST', body });
    expect(seen.headers?.['x-api-key']).toBe('k');
  });

  it.each([
    ['gzip', promisify(zlib.gzip)],
    ['deflate', promisify(zlib.deflate)],
    ['br', promisify(zlib.brotliCompress)],
    ['zstd', promisify(zlib.zstdCompress)],
    // Two codings: undone last-applied first (RFC 9110 §8.4).
    ['deflate, gzip', async (b: Buffer) => zlib.gzipSync(zlib.deflateSync(b))],
  ] as const)('a %s body reaches the client decompressed', async (coding, compress) => {
    const text = page(100);
    const packed = await compress(Buffer.from(text));
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      res.end(packed);
    });
    const { data } = await teams(client(url));
    expect(data).toHaveLength(100);
    expect(data[99]).toMatchObject({ id: 't99' });
  });

  it('a huge answer is stopped at the 32 MiB cap, not read to its end', async () => {
    let sent = 0;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(256 * 1024, 'a');
      let open = true;
      res.on('close', () => {
        open = false;
      });
      const pump = () => {
        while (open && sent < 1024 * 1024 * 1024) {
          sent += chunk.byteLength;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await expect(teams(client(url))).rejects.toThrow(/larger than 32 MiB/);
    // The socket's buffers past the cap, not the gigabyte the server would send.
    expect(sent).toBeLessThan(128 * 1024 * 1024);
  });

  it('a body cut short by the peer is an error, never a shorter page', async () => {
    const text = page(100);
    const url = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(text)),
      });
      res.write(text.slice(0, 500));
      setImmediate(() => res.socket?.destroy());
    });
    await expect(teams(client(url))).rejects.toMatchObject({ name: 'ConnectionError' });
  });

  it('a compressed body cut short is an error too', async () => {
    const packed = zlib.gzipSync(Buffer.from(page(2000)));
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.write(packed.subarray(0, packed.byteLength >> 1));
      setImmediate(() => res.socket?.destroy());
    });
    await expect(teams(client(url))).rejects.toMatchObject({ name: 'ConnectionError' });
  });

  it("an abort stops the request with the caller's reason and drops the connection", async () => {
    let closed = false;
    let arrived = false;
    const url = await serve((req) => {
      arrived = true;
      req.socket.on('close', () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const pending = teams(client(url), controller.signal);
    await expect.poll(() => arrived).toBe(true);
    controller.abort(new Error('stop now'));
    await expect(pending).rejects.toThrow('stop now');
    await expect.poll(() => closed).toBe(true);
  });

  it('a stalled answer ends at the timeout', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
    });
    await expect(teams(client(url, { timeoutMs: 200 }))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
  });

  it('redirects come back to the client unfollowed: same origin followed, another refused', async () => {
    const other = await serve((_req, res) => res.end(page(1)));
    const url = await serve((req, res) => {
      if (req.url?.includes('page=1')) {
        res.writeHead(307, { location: req.url.replace('page=1', 'page=2') });
        res.end();
      } else if (req.url?.includes('page=2')) {
        res.writeHead(302, { location: `${other}/api/v1/data-exports/teams?page=3` });
        res.end();
      }
    });
    await expect(teams(client(url))).rejects.toThrow(
      /was redirected to http:\/\/127\.0\.0\.1:\d+; credentials are not sent to another origin/,
    );
  });

  it('a HEAD answer that names a coding has no body to decode', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': '120' });
      res.end();
    });
    const res = await networkFetch()(new Request(url, { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it('a request without credentials follows redirects as fetch does; one with them gets them back', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/old') {
        res.writeHead(301, { location: '/new' });
        res.end();
      } else res.end(`at ${req.url}`);
    });
    const followed = await networkFetch()(new Request(`${url}/old`));
    expect(await followed.text()).toBe('at /new');
    const manual = await networkFetch()(new Request(`${url}/old`, { redirect: 'manual' }));
    expect(manual.status).toBe(301);
    expect(manual.headers.get('location')).toBe('/new');
  });

  it("many requests under one caller's signal leave no listener on it", async () => {
    const url = await serve((_req, res) => res.end(page(10)));
    const c = client(url);
    const signal = new AbortController().signal;
    for (let i = 0; i < 20; i++) await teams(c, signal);
    // (Nothing of a finished answer stays reachable from a signal that may outlive it.)
    expect(getEventListeners(signal, 'abort')).toEqual([]);
  });

  it('a raw deflate body (RFC 1951, no zlib header) is decoded too', async () => {
    const packed = zlib.deflateRawSync(Buffer.from(page(100)));
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' });
      res.end(packed);
    });
    const { data } = await teams(client(url));
    expect(data).toHaveLength(100);
  });

  it('an answer in 2,000 nested gzip layers is refused, never decoded layer after layer', async () => {
    let packed = Buffer.from(page(1));
    for (let i = 0; i < 2_000; i++) packed = zlib.gzipSync(packed, { level: 1 });
    let requests = 0;
    const url = await serve((_req, res) => {
      requests++;
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': Array.from({ length: 2_000 }, () => 'gzip').join(', '),
      });
      res.end(packed);
    });
    const error = await teams(client(url)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConnectionError' });
    expect(String((error as Error).message)).toMatch(/too many content-encodings/);
    expect(requests).toBe(1);
  });

  it('a stalled body ends at the deadline even after the request was collected as garbage', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    let sent = 0;
    let stalled!: () => void;
    const stall = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, ' ');
      res.write('{"data":[');
      const pump = () => {
        while (sent < 20) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        stalled();
      };
      pump();
    });
    // What nothing references any more (the Request of the attempt) goes once the body stalls,
    // if it can (under --expose-gc; the end-to-end test runs `rcs` so).
    void stall.then(() => gc?.());
    expect(await teams(client(url, { timeoutMs: 1_000 })).catch((e: unknown) => e)).toMatchObject({
      name: 'TimeoutError',
    });
  });
});
