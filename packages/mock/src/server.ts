import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getResponse } from 'msw';
import { createMockApi, type MockApi, type MockApiOptions } from './api.js';
import { MAX_BODY_BYTES, payloadTooLarge } from './body.js';
import { type CorsOption, type CorsPolicy, corsPolicy } from './cors.js';
import {
  clipEcho,
  internalErrorBody,
  ProblemError,
  problemBody,
  validationFailed,
} from './problem.js';

export interface MockServerOptions extends MockApiOptions {
  /** 0 picks a free port. Default 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** D26: CORS for pages on other origins. Default true (any origin); `{ origins }` limits it. */
  cors?: CorsOption;
  /**
   * A request (headers and body) must arrive whole within this time, or it is answered 408 and
   * the connection closed: a slow or stalled client cannot hold the server. Default 30 000 ms.
   */
  requestTimeoutMs?: number;
  /** Concurrent connections; one more is answered 503 and closed. Default 1024. */
  maxConnections?: number;
  /**
   * One line per unusual but normal event: a client that hung up mid-request, a connection
   * dropped by an injected fault (`dropAfterCreate`).
   */
  log?: (line: string) => void;
  /**
   * Called once per answered request with what a log line may show: never a
   * credential header, only the trace-context headers the request carried.
   */
  onAnswer?: (answer: AnswerRecord) => void;
}

/** One answered request, as `onAnswer` (and `rcs mock -v`) sees it. */
export interface AnswerRecord {
  method: string;
  /** The path (and query) of the request line. */
  target: string;
  status: number;
  /** The `x-request-id` the answer carried. */
  requestId: string;
  /** The W3C trace-context headers of the request, when it had them. */
  traceparent: string | undefined;
  tracestate: string | undefined;
}

/** The header that names each answer, as a real service's gateway does. */
export const REQUEST_ID_HEADER = 'x-request-id';

export interface MockServer {
  /** Base URL without /api/v1, e.g. http://127.0.0.1:4010. */
  url: string;
  close(): Promise<void>;
  api: MockApi;
  info: { apiKey?: string; repEmails: string[] } & MockApi['info'];
}

/** Drained but not kept beyond this, so an endless body cannot hold the server. */
const MAX_DRAIN_BYTES = 64 * MAX_BODY_BYTES;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_CONNECTIONS = 1024;

/** The API's methods; OPTIONS is the CORS preflight (D26). Anything else is 405. */
const API_METHODS = 'GET, POST';

/**
 * A Host header as RFC 9110 allows it: a bracketed IP literal or a reg-name, with an optional
 * port. Anything else (spaces, a path, userinfo) is a 400, and the Host is never used to route.
 */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{1,5})?$/;

/**
 * A real HTTP server over the mock's MSW handlers: a small node:http adapter that hands each
 * request to MSW's `getResponse`. Request bodies are counted while streaming, so a body over
 * 1 MiB gets 413 before anything is parsed (D2); a handler's `Response.error()` (an injected
 * fault) becomes a destroyed socket. Routing uses the request line only (D26).
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const api = createMockApi(options);
  const cors = corsPolicy(options.cors);
  const log = options.log ?? (() => {});
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const sockets = new Set<Socket>();
  const refused = new WeakSet<Socket>();
  let origin = 'http://127.0.0.1';
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: requestTimeout,
      // Node checks the two timeouts at this interval (30 s by default, which would double them).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(requestTimeout / 4))),
    },
    (req, res) => {
      if (refused.has(req.socket)) return;
      const requestId = randomUUID();
      // Every answer names itself, the failures too: the id a user quotes in a support request.
      res.setHeader(REQUEST_ID_HEADER, requestId);
      if (options.onAnswer) {
        const onAnswer = options.onAnswer;
        res.once('finish', () =>
          onAnswer({
            method: req.method ?? 'GET',
            target: req.url ?? '',
            status: res.statusCode,
            requestId,
            traceparent: headerValue(req, 'traceparent'),
            tracestate: headerValue(req, 'tracestate'),
          }),
        );
      }
      handle(api, cors, origin, req, res, log).catch((err) => {
        if (clientGone(req, err)) {
          log(`client ${peer(req.socket)} hung up before the answer (${describe(err)})`);
          req.socket.destroy();
          return;
        }
        console.error('[rcs mock] internal error:', err);
        if (!res.headersSent) {
          res.writeHead(500, {
            'content-type': 'application/problem+json',
            ...cors.answerHeaders(originOf(req)),
          });
          res.end(internalErrorBody(err));
        } else {
          res.destroy();
        }
      });
    },
  );
  server.on('connection', (s) => {
    if (sockets.size >= maxConnections) {
      // A clear refusal rather than a silent drop: one 503 problem, then the connection closes.
      refused.add(s);
      s.on('error', () => {});
      s.end(
        rawProblem(503, 'service_unavailable', 'Service unavailable', {
          detail: `The mock has ${maxConnections} open connections, its limit; retry later.`,
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A malformed request line or header, or a request that did not arrive in time, is the
  // client's fault: a 4xx problem, never a crash and never a 500.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      log(`client ${peer(socket)} hung up mid-request (${err.code ?? err.message})`);
      socket.destroy();
      return;
    }
    const [status, code, title, detail] =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'request_timeout',
            'Request timeout',
            `The request did not arrive within ${requestTimeout} ms.`,
          ]
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? [
              431,
              'request_header_fields_too_large',
              'Request header fields too large',
              'The request headers are too large.',
            ]
          : [400, 'bad_request', 'Bad request', 'The request is not valid HTTP/1.1.'];
    socket.end(rawProblem(status, code, title, { detail }));
  });
  // `Expect: 100-continue` with a declared body over 1 MiB: refused before the body is sent.
  server.on('checkContinue', (req, res) => {
    if (Number(req.headers['content-length'] ?? Number.NaN) > MAX_BODY_BYTES) {
      // Its `connection: close`: the client may send the body anyway.
      sendProblem(res, payloadTooLarge(), cors.answerHeaders(originOf(req)));
      return;
    }
    // Behind a pipelined request the answer waits its turn (no socket yet): an interim 100 would
    // come out after it, so it is left out (RFC 9110 §10.1.1: the client sends the body anyway).
    if (res.socket) res.writeContinue();
    server.emit('request', req, res);
  });
  server.keepAliveTimeout = 5000;
  // A client that sends its requests and then half-closes (shuts down its sending side, as
  // `curl` or a proxy may) still gets every answer: by default Node aborts the requests read but
  // not yet answered when the client's FIN arrives, and ends the socket, so pipelined requests,
  // or any request waiting out --latency-ms, were answered with nothing. With this flag Node
  // answers them in order and then ends the connection itself (no half-open socket left behind).
  // Node's own flag (undocumented, kept for its test suite and http2/spdy servers): the
  // half-close tests in test/server-hardening.test.ts fail if a Node version drops it.
  (server as typeof server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;

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
  origin = `http://${urlHost}:${port}`;
  return {
    url: origin,
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

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

function originOf(req: IncomingMessage): string | undefined {
  const o = req.headers.origin;
  return typeof o === 'string' ? o : undefined;
}

function peer(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(err);
}

/** A client that went away mid-request: normal for a server, not an error of the mock. */
function clientGone(req: IncomingMessage, err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return (
    req.socket.destroyed ||
    e?.code === 'ECONNRESET' ||
    e?.code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    e?.message === 'aborted'
  );
}

/**
 * The path and query of the request line (origin-form or absolute-form), or undefined when it is
 * neither. The Host header plays no part (D26: route on the request line only).
 */
function requestTarget(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.length === 0) return undefined;
  if (raw.startsWith('/')) return raw;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:'
      ? `${u.pathname}${u.search}`
      : undefined;
  } catch {
    return undefined;
  }
}

async function handle(
  api: MockApi,
  cors: CorsPolicy,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
  log: (line: string) => void,
): Promise<void> {
  const method = req.method ?? 'GET';
  const corsHeaders = cors.answerHeaders(originOf(req));
  const refuse = (p: ProblemError) => sendProblem(res, p, corsHeaders);
  // RFC 9112 §3.2: a request with more than one Host field is a 400 (Node keeps only the first).
  const hosts = hostFields(req.rawHeaders);
  if (hosts > 1) {
    refuse(badRequest(`The request has ${hosts} Host header fields; HTTP/1.1 allows exactly one.`));
    return;
  }
  const host = req.headers.host;
  if (host !== undefined && !HOST_HEADER.test(host)) {
    refuse(badRequest(`The Host header ${clipEcho(host)} is not a valid host[:port].`));
    return;
  }
  const target = requestTarget(req.url);
  if (target === undefined) {
    refuse(badRequest(`The request target ${clipEcho(req.url ?? '')} is not a path.`));
    return;
  }
  if (method === 'OPTIONS' && cors.enabled) {
    const preflight = cors.preflightHeaders(originOf(req));
    if (!preflight) {
      refuse(
        new ProblemError(
          403,
          'origin_not_allowed',
          `The origin ${clipEcho(originOf(req) ?? '(none)')} is not allowed (rcs mock --cors-origin).`,
        ),
      );
      return;
    }
    res.writeHead(204, { ...preflight, allow: `${API_METHODS}, OPTIONS`, 'content-length': '0' });
    res.end();
    return;
  }
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    const allow = cors.enabled ? `${API_METHODS}, OPTIONS` : API_METHODS;
    refuse(
      new ProblemError(
        405,
        'method_not_allowed',
        `The method ${clipEcho(method)} is not allowed: the API answers ${API_METHODS}.`,
        undefined,
        { allow },
      ),
    );
    return;
  }
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let body: Buffer | undefined;
  if (hasBody) {
    const read = await readBody(req);
    if (read === 'too-large') {
      // Its `connection: close`: the rest of the body may still be coming.
      refuse(payloadTooLarge());
      return;
    }
    body = read;
  }
  // MSW decodes path segments while matching and would throw on a malformed escape (a 500).
  try {
    decodeURIComponent(target.split('?')[0] as string);
  } catch {
    refuse(
      validationFailed([{ path: '/path', message: 'the path has a malformed percent-encoding' }]),
    );
    return;
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const request = new Request(`${origin}${target}`, {
    method,
    headers,
    ...(body && body.length > 0 ? { body: new Uint8Array(body) } : {}),
  });
  // The nine export GETs skip MSW's matching (same handler code, a fraction of the cost per page).
  const direct =
    method === 'GET' ? api.exportRoutes.get(target.split('?')[0] as string) : undefined;
  const response = direct ? await direct(request) : await getResponse(api.handlers, request);
  if (!response) {
    refuse(
      new ProblemError(
        404,
        'not_found',
        `No operation ${method} ${clipEcho(target.split('?')[0] as string)}: every path starts with /api/v1.`,
      ),
    );
    return;
  }
  // Response.error(): an injected fault that drops the connection without an answer. No answer
  // means no access line, so it gets a line of its own: a client's "fetch failed" is explained.
  if (response.type === 'error') {
    // No request id: the client never saw the one this answer would have carried.
    log(
      `${method} ${clipEcho(target.split('?')[0] as string)} dropped: connection closed without an answer (an injected fault)`,
    );
    req.socket.destroy();
    return;
  }
  const out: Record<string, string> = { ...corsHeaders };
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  const payload = Buffer.from(await response.arrayBuffer());
  out['content-length'] = String(payload.length);
  res.writeHead(response.status, out);
  res.end(payload);
}

/** How many Host fields the request has (`rawHeaders` alternates names and values). */
function hostFields(rawHeaders: readonly string[]): number {
  return rawHeaders.filter((field, i) => i % 2 === 0 && field.toLowerCase() === 'host').length;
}

function badRequest(detail: string): ProblemError {
  return new ProblemError(400, 'bad_request', detail);
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

/**
 * A refusal keeps the connection (a request read whole, or whose unread body Node drains after the
 * answer): the requests pipelined behind it are answered in order, like any others. Only a
 * problem that says `connection: close` itself (413: the rest of the body may still be coming)
 * ends it.
 */
function sendProblem(
  res: ServerResponse,
  p: ProblemError,
  extra: Record<string, string> = {},
): void {
  const payload = JSON.stringify(problemBody(p));
  res.writeHead(p.status, {
    ...extra,
    ...p.headers,
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(payload)),
  });
  res.end(payload);
}

/** A whole HTTP/1.1 answer with a D1 problem body, for a socket the HTTP parser gave up on. */
function rawProblem(
  status: number,
  code: string,
  title: string,
  opts: { detail: string; headers?: Record<string, string> },
): string {
  const payload = JSON.stringify({
    type: `https://rcs.dev/problems/${code}`,
    title,
    status,
    detail: opts.detail,
    code,
  });
  const extra = Object.entries(opts.headers ?? {})
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${title}\r\ncontent-type: application/problem+json\r\n` +
    `content-length: ${Buffer.byteLength(payload)}\r\n${extra}connection: close\r\n\r\n${payload}`
  );
}
