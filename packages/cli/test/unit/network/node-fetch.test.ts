import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { createRcsClient } from '@rcs/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeFetch, isNode } from '../../../src/network/node-fetch.js';

// The CLI's fetch over node:http (issue 11) against a real server on a loopback port: every
// behaviour the client's transport relies on, compared where it matters with Node's own fetch.

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: Handler) {
  const connections: number[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    handler(req, res, Buffer.concat(chunks));
  });
  server.on('connection', () => connections.push(Date.now()));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections, server };
}

const manual = (url: string, init: RequestInit = {}) =>
  new Request(url, { redirect: 'manual', ...init });

describe('the CLI fetch over node:http', () => {
  it('answers with the status, every header (repeated ones too) and the body bytes as sent', async () => {
    const payload = Buffer.from('{"data":[{"name":"Zoë \\u2028 😀"}],"x":"\u00e9"}');
    const { url } = await serve((_req, res) => {
      res.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['x-multi', 'a'],
        ['x-multi', 'b'],
      ]);
      res.end(payload);
    });
    const f = createNodeFetch();
    const res = await f(manual(`${url}/x`));
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Made');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(payload);
  });

  it('sends the method, the headers and the body with its length', async () => {
    let seen: { method?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const { url } = await serve((req, res, body) => {
      seen = { method: req.method, headers: req.headers, body: body.toString('utf8') };
      res.end('ok');
    });
    const body = JSON.stringify({ text: 'été — 1' });
    const res = await createNodeFetch()(
      manual(`${url}/sessions?x=1`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'rcs-cli/test',
          'X-API-KEY': 'k',
        },
        body,
      }),
    );
    expect(await res.text()).toBe('ok');
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.headers?.['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers?.['user-agent']).toBe('rcs-cli/test');
    expect(seen.headers?.['x-api-key']).toBe('k');
    expect(seen.headers?.['accept-encoding']).toBe('gzip, deflate, br');
  });

  it.each([
    ['gzip', promisify(zlib.gzip)],
    ['deflate', promisify(zlib.deflate)],
    ['br', promisify(zlib.brotliCompress)],
  ] as const)('decompresses a %s body as fetch does', async (coding, compress) => {
    const text = JSON.stringify({
      data: Array.from({ length: 2000 }, (_, i) => ({ id: `r${i}` })),
    });
    const packed = await compress(Buffer.from(text));
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': coding, 'content-length': packed.byteLength });
      res.end(packed);
    });
    const ours = await createNodeFetch()(manual(url));
    expect(await ours.text()).toBe(text);
    const theirs = await fetch(url);
    expect(await theirs.text()).toBe(text);
  });

  it('keeps the connection open for the next request', async () => {
    const { url, connections } = await serve((_req, res) => res.end('x'));
    const f = createNodeFetch();
    for (let i = 0; i < 5; i++) expect(await (await f(manual(url))).text()).toBe('x');
    expect(connections).toHaveLength(1);
  });

  it('gives 204 and HEAD answers no body', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(req.method === 'HEAD' ? 200 : 204, { 'x-n': '1' });
      res.end();
    });
    const f = createNodeFetch();
    const empty = await f(manual(url, { method: 'DELETE' }));
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const head = await f(manual(url, { method: 'HEAD' }));
    expect(head.headers.get('x-n')).toBe('1');
    expect(head.body).toBeNull();
  });

  it('hands a redirect back as it came (the transport follows it, same origin only)', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else res.end('new');
    });
    const f = createNodeFetch();
    const res = await f(manual(`${url}/old`));
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('/new');
    // A request that asks for redirects to be followed goes to Node's fetch, which follows.
    expect(await (await f(`${url}/old`)).text()).toBe('new');
  });

  it('a refused connection fails as fetch fails: TypeError with the system error as cause', async () => {
    const { url, server } = await serve(() => {});
    server.close();
    await once(server, 'close');
    const error = await createNodeFetch()(manual(url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(((error as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('an abort before the answer rejects with the reason and drops the connection', async () => {
    let closed = false;
    const { url } = await serve((req) => {
      req.socket.on('close', () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const pending = createNodeFetch()(manual(url, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('stop now')), 50);
    await expect(pending).rejects.toThrow('stop now');
    await expect.poll(() => closed).toBe(true);
  });

  it('a body cut short by the peer is an error, never a shorter body', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 'a'));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await createNodeFetch()(manual(url));
    await expect(res.text()).rejects.toThrow();
  });

  it('a compressed body cut short is an error too', async () => {
    const packed = zlib.gzipSync(Buffer.alloc(200_000, 'z'));
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.write(packed.subarray(0, packed.byteLength >> 1));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await createNodeFetch()(manual(url));
    await expect(res.text()).rejects.toThrow();
  });

  it('cancelling a body stops reading it: a huge answer is not pulled in', async () => {
    let sent = 0;
    let closed = false;
    const { url } = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'b');
      const pump = () => {
        while (!closed && sent < 500 * 1024 * 1024) {
          sent += chunk.byteLength;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    const res = await createNodeFetch()(manual(url));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let read = 0;
    while (read < 1024 * 1024) read += ((await reader.read()).value as Uint8Array).byteLength;
    await reader.cancel();
    await expect.poll(() => closed).toBe(true);
    // Socket buffers and the stream's few chunks, not the 500 MB the server would send.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('serves the SDK client: the transport times out a stalled answer and caps a big one', async () => {
    const { url } = await serve((req, res) => {
      if (req.url?.startsWith('/users')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data":[');
        return; // never ends
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: 'x'.repeat(4096) }));
    });
    const client = createRcsClient({
      baseUrl: url,
      apiKey: 'k',
      fetch: createNodeFetch(),
      timeoutMs: 200,
      maxRetries: 0,
      maxResponseBytes: 1024,
    });
    await expect(client.GET('/users' as never, {} as never)).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    await expect(client.GET('/teams' as never, {} as never)).rejects.toThrow(
      /larger than 1024 bytes/,
    );
  });

  it('is used on Node only (Bun and Deno have their own fetch)', () => {
    expect(isNode()).toBe(true);
  });
});
