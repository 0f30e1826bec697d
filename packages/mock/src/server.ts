import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getResponse } from 'msw';
import { createMockApi, type MockApi, type MockApiOptions } from './api.js';
import { MAX_BODY_BYTES, payloadTooLarge } from './body.js';
import { internalErrorBody, ProblemError, problemBody, validationFailed } from './problem.js';

export interface MockServerOptions extends MockApiOptions {
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface MockServer {
  /** Base URL without /api/v1, e.g. http://127.0.0.1:4010. */
  url: string;
  close(): Promise<void>;
  api: MockApi;
  info: { apiKey?: string; repEmails: string[] } & MockApi['info'];
}

/** Drained but not kept beyond this, so an endless body cannot hold the server. */
const MAX_DRAIN_BYTES = 64 * MAX_BODY_BYTES;

/**
 * A real HTTP server over the mock's MSW handlers: a small node:http adapter that hands each
 * request to MSW's `getResponse`. Request bodies are counted while streaming, so a body over
 * 1 MiB gets 413 before anything is parsed (D2); a handler's `Response.error()` (an injected
 * fault) becomes a destroyed socket.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const api = createMockApi(options);
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(api, req, res).catch((err) => {
      console.error('[rcs mock] adapter error:', err);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/problem+json' });
        res.end(internalErrorBody(err));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A malformed request line or header is the client's fault: answer 400, never crash.
  server.on('clientError', (_err, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  // `Expect: 100-continue` with a declared body over 1 MiB: refused before the body is sent.
  server.on('checkContinue', (req, res) => {
    if (Number(req.headers['content-length'] ?? Number.NaN) > MAX_BODY_BYTES) {
      sendProblem(res, payloadTooLarge());
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  server.keepAliveTimeout = 5000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4010, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    api,
    info: {
      ...api.info,
      ...(api.info.apiKeys[0] === undefined ? {} : { apiKey: api.info.apiKeys[0] }),
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        for (const s of sockets) s.destroy();
      }),
  };
}

async function handle(api: MockApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let body: Buffer | undefined;
  if (hasBody) {
    const read = await readBody(req);
    if (read === 'too-large') {
      sendProblem(res, payloadTooLarge());
      return;
    }
    body = read;
  }
  // MSW decodes path segments while matching and would throw on a malformed escape (a 500).
  try {
    decodeURIComponent((req.url ?? '/').split('?')[0] as string);
  } catch {
    sendProblem(
      res,
      validationFailed([{ path: '/path', message: 'the path has a malformed percent-encoding' }]),
    );
    return;
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    ...(body && body.length > 0 ? { body: new Uint8Array(body) } : {}),
  });
  const response = await getResponse(api.handlers, request);
  if (!response) {
    sendProblem(
      res,
      new ProblemError(
        404,
        'not_found',
        `No operation ${method} ${req.url}: every path starts with /api/v1.`,
      ),
    );
    return;
  }
  // Response.error(): an injected fault that drops the connection without an answer.
  if (response.type === 'error') {
    req.socket.destroy();
    return;
  }
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  const payload = Buffer.from(await response.arrayBuffer());
  out['content-length'] = String(payload.length);
  res.writeHead(response.status, out);
  res.end(payload);
}

/**
 * The body, or 'too-large' once it passed 1 MiB: from then on nothing is kept, the rest is
 * drained so that the client, still sending, can read the 413 (past 64 MiB the socket is cut).
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? Number.NaN) > MAX_BODY_BYTES;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!tooLarge && size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
      }
      if (!tooLarge) chunks.push(chunk);
      else if (size > MAX_DRAIN_BYTES) {
        resolve('too-large');
        req.socket.destroy();
      }
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendProblem(res: ServerResponse, p: ProblemError): void {
  const payload = JSON.stringify(problemBody(p));
  res.writeHead(p.status, {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(payload)),
    connection: 'close',
  });
  res.end(payload);
}
