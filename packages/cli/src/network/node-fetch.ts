/**
 * A `fetch` over Node's own `node:http`/`node:https`, for the CLI's requests on a machine without
 * a proxy (issue 11's export benchmarks; bench/export/README.md "The CLI's own fetch").
 *
 * Node's global fetch (undici, with its HTTP parser compiled to WebAssembly) costs a page of an
 * export about a third more CPU than the same request through `node:http`, and the process about
 * 15-18 MB more peak RSS. The client's transport takes any fetch (its `fetch` option), so the CLI
 * gives it this one; the SDK itself keeps the platform's fetch (browsers, Bun, Deno, workers).
 *
 * It does what the transport asks of a fetch, the way fetch does it:
 * - one request, and the answer as it came: redirects are the transport's to follow (same origin
 *   only, `redirect: 'manual'`); a request that wants them followed goes to the global fetch;
 * - the body decompressed per `Content-Encoding` (gzip, deflate, br, as fetch asks for them), read
 *   as a stream with backpressure, so the transport's size cap stops reading a huge answer;
 * - failures shaped as fetch shapes them: `TypeError('fetch failed')` with the system error
 *   (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, …) as its cause, which is what the transport classifies;
 *   a body cut short is an error of the body, never a shorter body;
 * - an abort ends the request or the body at once, with the signal's reason.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** Connections are kept open between requests, as undici's dispatcher does; idle ones are unref'd. */
const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo' } as const;

/** Chunks a body stream holds before Node's side is paused. */
const BODY_HIGH_WATER_CHUNKS = 4;

/** Whether this runtime is Node itself (Bun and Deno ship their own fetch and their own node:http). */
export function isNode(): boolean {
  const versions = process.versions as Record<string, string | undefined>;
  return versions.bun === undefined && versions.deno === undefined && !('Deno' in globalThis);
}

export function createNodeFetch(): typeof fetch {
  const agents = {
    'http:': new http.Agent(AGENT_OPTIONS),
    'https:': new https.Agent(AGENT_OPTIONS),
  };

  return (async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request =
      input instanceof Request && init === undefined ? input : new Request(input, init);
    const url = new URL(request.url);
    if (request.redirect !== 'manual' || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return globalThis.fetch(request);
    }
    const signal = request.signal;
    signal.throwIfAborted();
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name] = value;
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    if (body !== undefined) headers['content-length'] = String(body.byteLength);

    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, {
        method: request.method,
        headers,
        agent: agents[url.protocol as 'http:' | 'https:'],
      });
      const onAbort = () => req.destroy(asError(signal.reason));
      signal.addEventListener('abort', onAbort, { once: true });
      const forget = () => signal.removeEventListener('abort', onAbort);
      req.on('error', (error) => {
        forget();
        reject(signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error }));
      });
      req.on('response', (res) => {
        res.on('close', forget);
        resolve(toResponse(res, request.method, signal));
      });
      req.end(body);
    });
  }) as typeof fetch;
}

function asError(reason: unknown): Error {
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}

function toResponse(res: IncomingMessage, method: string, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.append(raw[i] as string, raw[i + 1] as string);
  const init = { status, statusText: res.statusMessage ?? '', headers };
  if (NULL_BODY_STATUS.has(status) || method === 'HEAD') {
    res.resume();
    return new Response(null, init);
  }
  return new Response(webStream(decoded(res), res, signal), init);
}

/** The body as fetch gives it: decompressed per Content-Encoding, with fetch's codings. */
function decoded(res: IncomingMessage): Readable {
  const codings = (res.headers['content-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  let stream: Readable = res;
  // Listed in the order they were applied: undone last first. An unknown coding is handed on
  // as it came (fetch does the same).
  for (const coding of codings.reverse()) {
    const next = decoder(coding);
    if (!next) break;
    const from = stream;
    from.on('error', (error) => next.destroy(error));
    from.on('close', () => {
      if (!from.readableEnded) next.destroy(new Error('the answer ended before its body did'));
    });
    stream = from.pipe(next);
  }
  return stream;
}

function decoder(coding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  // Lenient at the very end, as browsers and undici are: a body that stops after a whole
  // flushed block still gives what it holds.
  if (coding === 'gzip' || coding === 'x-gzip') {
    return zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  }
  if (coding === 'deflate') return zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  if (coding === 'br') {
    return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  }
  return undefined;
}

/**
 * A web stream over a Node stream, with backpressure (Node's side is paused while the web side is
 * full). A source that closes before its end errors the stream: a body cut short by the peer or
 * the network is never handed on as a complete, shorter one.
 */
function webStream(
  source: Readable,
  socketSide: IncomingMessage,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on('data', (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.on('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        const fail = (error?: Error) => {
          if (settled) return;
          settled = true;
          controller.error(
            signal.aborted ? signal.reason : new TypeError('terminated', { cause: error }),
          );
        };
        source.on('error', fail);
        // Closed with no error and no end: the connection went away mid-body.
        source.on('close', () => fail(new Error('the connection closed before the body ended')));
      },
      pull() {
        source.resume();
      },
      cancel() {
        settled = true;
        source.destroy();
        socketSide.destroy();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_CHUNKS },
  );
}
