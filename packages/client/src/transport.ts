import type { RatePacer } from './adaptive-rate.js';
import { parseErrorBody, requestIdOf } from './api-error.js';
import {
  type BackoffOptions,
  backoffDelay,
  DEFAULT_BACKOFF,
  MAX_TIMER_MS,
  sleep,
} from './backoff.js';
import { type ByteStream, readBoundedChunks } from './bounded-body.js';
import { certificateFailure } from './certificate.js';
import { ConnectionError, RcsError, TimeoutError } from './errors.js';
import { classifyNetworkFailure } from './network-failure.js';
import type { Redactor } from './redact.js';
import { type RequestSpan, startRequestSpan } from './request-span.js';
import { parseRetryAfter } from './retry-after.js';
import { type ClientTracing, errorType, type TracedSpan } from './tracing.js';
import { escapeInvalidUtf8 } from './utf8-escape.js';

/** Per-request overrides of the client's defaults. */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Per attempt, covering the answer's headers and body. */
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** The client's `retryForMs`, for this request. */
  retryForMs?: number | undefined;
  /**
   * Whether sending the request twice is harmless. Defaults to true for GET/HEAD/PUT/DELETE/
   * OPTIONS and false for POST/PATCH. Set it on a POST only when the service de-duplicates.
   */
  idempotent?: boolean | undefined;
  /**
   * A tally of the caller's own that this request is counted into as well as `client.stats`
   * (`rcs upload --json` reports each file's requests). Mutated in place.
   */
  stats?: RequestStats | undefined;
}

/** Something with console-like methods; the client only ever logs method, URL, status, timing. */
export interface Logger {
  debug?: (message: string, data?: Record<string, unknown>) => void;
  warn?: (message: string, data?: Record<string, unknown>) => void;
}

export interface TransportConfig extends BackoffOptions {
  fetch?: FetchFunction | undefined;
  apiKey?: string | undefined;
  token?: string | undefined;
  userAgent?: string | undefined;
  allowInsecureHttp?: boolean | undefined;
  maxRetries: number;
  timeoutMs: number;
  /**
   * The most one request may take, every attempt and every wait between them included (one
   * deadline for every network wait). Unset: each attempt has `timeoutMs`, no more.
   */
  deadlineMs?: number | undefined;
  logger?: Logger | undefined;
  redact: Redactor;
  /**
   * Retries after a refused connection or an unknown host until the service first
   * answered: before that, these mean a wrong base URL; after it, a passing outage.
   */
  unreachableRetries?: number | undefined;
  /** How long a request keeps trying while the service is down (client.ts); 0: not at all. */
  retryForMs?: number | undefined;
  /** The largest answer body read; a larger one fails the request unread. */
  maxResponseBytes: number;
  /** Shared pacing of every request of this client (AIMD on 429s), or none. */
  pacer?: RatePacer | undefined;
  /** The answer header naming the service's request id; see `requestIdOf`. */
  requestIdHeader?: string | undefined;
  /** Spans for requests, or none: then nothing of tracing runs. */
  tracing?: ClientTracing | undefined;
}

export type FetchLike = (input: Request) => Promise<Response>;

/**
 * The client's `fetch` option (README "A fetch of your own"): called once per attempt with a
 * `Request` alone (`init` is never given; it is in the type so that a `(input, init) => …`
 * wrapper written for the platform's fetch still fits). The platform's `fetch` is one, and so is
 * a function over another copy of undici's, whose `Response` type differs from the platform's in
 * parts the client never reads.
 */
export type FetchFunction = (request: Request, init?: RequestInit) => Promise<FetchResponse>;

/** What the client reads of the answer of its `fetch` option: any `Response` has it. */
export interface FetchResponse {
  readonly status: number;
  readonly statusText: string;
  /** `'opaqueredirect'`: a redirect that a browser gives back unfollowed (`redirect: 'manual'`). */
  readonly type?: string;
  readonly headers: {
    get(name: string): string | null;
    forEach(callback: (value: string, name: string) => void): void;
  };
  readonly body: ByteStream | null;
}

/** What a client's requests came to (the run summary of `rcs`). Counted always. */
export interface RequestStats {
  /** HTTP attempts sent (a retry is one more). */
  requests: number;
  /** Attempts that were retries. */
  retries: number;
  /** Answers 429 (rate limited). */
  rateLimited: number;
  /** Time spent waiting because of rate limits: Retry-After after a 429, the pacer's holds. */
  rateLimitWaitMs: number;
  /** Bytes of answer bodies read. */
  bytesReceived: number;
  /** Bytes of request bodies sent (every attempt). */
  bytesSent: number;
}

/** All counts at zero: a fresh tally for a call's `stats` option. */
export function emptyRequestStats(): RequestStats {
  return {
    requests: 0,
    retries: 0,
    rateLimited: 0,
    rateLimitWaitMs: 0,
    bytesReceived: 0,
    bytesSent: 0,
  };
}

type Count = (what: keyof RequestStats, n?: number) => void;

/** What the client's own methods add to a request's options: where its span goes. */
export interface TracedRequestOptions extends RequestOptions {
  /** The span this request's span is a child of (a pagination, a wait). */
  parentSpan?: TracedSpan | undefined;
  /** The path template (`/api/v1/real-call-sessions/{sessionId}`): the span's low-cardinality name. */
  urlTemplate?: string | undefined;
}

/** Statuses worth a second try for a request that may safely be repeated. */
const RETRY_IDEMPOTENT = new Set([408, 429, 500, 502, 503, 504]);
/**
 * For the create POST only statuses that guarantee nothing was created: 429 (rate limit), 503
 * (not accepted), and 502 with D3 `identity_provider_error` (R9: "no user or session is created.
 * The upload can be retried"). A 502 from a gateway without that code could hide a created session.
 */
const RETRY_NON_IDEMPOTENT = new Set([429, 503]);
const seconds = (ms: number) => `${Math.ceil(ms / 100) / 10} s`;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** @internal */
export function isLoopbackHost(hostname: string): boolean {
  // URL gives IPv6 hosts in brackets ("[::1]").
  const h = (
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  ).toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127(\.\d{1,3}){3}$/.test(h) ||
    h === '0:0:0:0:0:0:0:1'
  );
}

/**
 * Refuses to send credentials in clear text to anything but this machine, unless the caller
 * opted in. Checked per request too, since the raw `GET`/`POST` can override `baseUrl`.
 */
export function assertSecureTransport(
  url: URL,
  hasCredentials: boolean,
  allowInsecureHttp: boolean | undefined,
): void {
  if (!hasCredentials || allowInsecureHttp || url.protocol !== 'http:') return;
  if (isLoopbackHost(url.hostname)) return;
  throw new RcsError(
    `refusing to send credentials over plain http to ${url.host}: use https, or pass ` +
      'allowInsecureHttp: true if this network is trusted',
  );
}

/**
 * Nothing listens there, or the name resolves nowhere: a wrong base URL far more often than a
 * passing outage, so it gets its own (small) retry budget instead of 20 s of silent retries.
 */
export function isUnreachable(error: unknown): boolean {
  const kind = classifyNetworkFailure(error)?.kind;
  return kind === 'refused' || kind === 'dns';
}

/**
 * How a service that is down shows, for the line: a gateway or the service answering 502, 503 or
 * 504 (not refusing this request), or no answer at all (a network failure). Undefined otherwise.
 */
function outageOf(res: Response | undefined, failure: unknown): string | undefined {
  if (res) return [502, 503, 504].includes(res.status) ? `answered ${res.status}` : undefined;
  const net = classifyNetworkFailure(failure);
  return net && `${net.kind} (${net.code ?? 'no answer'})`;
}

/**
 * In a browser, fetch rejects a cross-origin request the service refused (CORS) with a bare
 * TypeError ("Failed to fetch"), exactly as a network failure: the page cannot tell them apart,
 * so the message says both, and what to check.
 */
function crossOriginHint(error: unknown, url: string): string {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  if (typeof origin !== 'string' || origin === new URL(url).origin) return '';
  if (!(error instanceof TypeError) || error.cause !== undefined) return '';
  return `; a cross-origin request the service refused (CORS) fails the same way in a browser: check that the service allows the origin ${origin} (its CORS allow-list; \`rcs mock --cors-origin ${origin}\` for the mock)`;
}

/** Reads a body, refusing one larger than `limit` bytes before it is held in memory. */
async function readCapped(
  res: FetchResponse,
  limit: number,
  where: { method: string; url: string },
  signal: AbortSignal,
): Promise<Uint8Array[]> {
  const declared = Number(res.headers.get('content-length'));
  const chunks =
    Number.isFinite(declared) && declared > limit
      ? await res.body?.cancel().catch(() => {})
      : await readBoundedChunks(res.body, limit, signal);
  if (chunks) return chunks;
  // `limit` is a positive integer (the client checks maxResponseBytes): a whole MiB is at least 1.
  const size = limit % 2 ** 20 === 0 ? `${limit / 2 ** 20} MiB` : `${limit} bytes`;
  throw new RcsError(
    `${where.method} ${where.url}: the answer is larger than ${size}; it was not read (maxResponseBytes)`,
  );
}

/** A stream that gives back chunks already in memory (it never waits on the network). */
function replay(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // A cause that is not an object (or none) has no code or message to read.
    const { code, message } = (error.cause ?? {}) as { code?: unknown; message?: unknown };
    const detail = [code, message].filter((x) => typeof x === 'string').join(' ');
    return detail ? `${error.message} (${detail})` : error.message;
  }
  return String(error);
}

/**
 * Whether an answer is a transient failure that a repeat of this request may get past. The D1
 * `code` is read from a clone (the response is returned unconsumed) with the lenient reader that
 * classifies the error, so `{ error: { code } }` counts too; the clone is of bytes already read.
 */
async function worthRetrying(res: Response, idempotent: boolean): Promise<boolean> {
  if (idempotent) return RETRY_IDEMPOTENT.has(res.status);
  if (RETRY_NON_IDEMPOTENT.has(res.status)) return true;
  if (res.status !== 502) return false;
  return parseErrorBody(await res.clone().text()).code === 'identity_provider_error';
}

interface Attempt {
  response?: Response;
  failure?: ConnectionError;
  /** When the pacer let the request go (its send time for the rate measure). */
  sentAt?: number | undefined;
}

/**
 * Builds the fetch that openapi-fetch calls. openapi-fetch itself does not retry, time out or add
 * credentials; the fetch built here does, around whichever `fetch` the caller gave (or the global
 * one, looked up per call so that MSW or any later patch of `globalThis.fetch` is seen).
 */
export function createTransport(config: TransportConfig) {
  const backoff = { ...DEFAULT_BACKOFF };
  for (const k of Object.keys(backoff) as (keyof BackoffOptions)[])
    backoff[k] = config[k] ?? backoff[k];
  const hasCredentials = Boolean(config.apiKey || config.token);
  /** Whether this service ever answered: then a refused connection is an outage, not a typo. */
  let answered = false;
  const stats = emptyRequestStats();

  /** Returns the fetch for one logical request, with its per-request options applied. */
  transport.stats = stats;
  return transport;
  function transport(options: TracedRequestOptions = {}): FetchLike {
    const tally = options.stats;
    // Into the client's counts, and the caller's own tally when it passed one.
    const count: Count = (what, n = 1) => {
      stats[what] += n;
      if (tally) tally[what] += n;
    };
    const tracing = config.tracing;
    if (!tracing) return (request) => send(request, undefined);
    return async (request) => {
      const span = startRequestSpan(
        tracing,
        {
          method: request.method.toUpperCase(),
          url: request.url,
          template: options.urlTemplate,
          ...(options.parentSpan ? { parent: options.parentSpan } : {}),
        },
        config,
      );
      try {
        const response = await send(request, span);
        span.end();
        return response;
      } catch (error) {
        span.end(error);
        throw error;
      }
    };

    async function send(request: Request, span: RequestSpan | undefined): Promise<Response> {
      const url = new URL(request.url);
      assertSecureTransport(url, hasCredentials, config.allowInsecureHttp);
      const method = request.method.toUpperCase();
      const idempotent = options.idempotent ?? SAFE_METHODS.has(method);
      const maxRetries = Math.max(0, options.maxRetries ?? config.maxRetries);
      const timeoutMs = options.timeoutMs ?? config.timeoutMs;
      let deadline = deadlineOf(config.deadlineMs);
      const callerSignal = options.signal ?? request.signal;
      const headers = new Headers(request.headers);
      if (config.apiKey) headers.set('X-API-KEY', config.apiKey);
      if (config.token) headers.set('Authorization', `Bearer ${config.token}`);
      if (config.userAgent) headers.set('User-Agent', config.userAgent);
      // Buffered once so that every attempt sends the same bytes (bodies are ≤ 1 MiB, D2).
      const body = request.body === null ? undefined : await request.arrayBuffer();
      const where = { method, url: request.url };

      const retryForMs = options.retryForMs ?? config.retryForMs ?? 0;
      /** When the window of the outage under way ends (retryForMs). */
      let outageEnds: number | undefined;
      let retries = 0;
      for (let n = 0; ; n++) {
        const attempt = await sendOnce(
          (signal) =>
            new Request(request.url, {
              method,
              headers,
              body,
              // fetch forwards X-API-KEY across origins on a redirect (it strips only
              // Authorization), so with credentials redirects are followed here, same-origin only.
              redirect: hasCredentials ? 'manual' : request.redirect,
              signal,
            }),
          { callerSignal, timeoutMs, deadline, idempotent, where, headers, body, span, count },
        );
        const res = attempt.response;
        const failure = attempt.failure as ConnectionError;
        let asked: number | undefined;
        if (res) {
          answered = true;
          const requestId = requestIdOf(res.headers, config.requestIdHeader);
          config.logger?.debug?.(
            `${method} ${request.url} -> ${res.status}${requestId ? ` (request id ${requestId})` : ''}`,
            { status: res.status, attempt: n + 1, requestId },
          );
          span?.answered(res);
          if (res.status === 429) count('rateLimited');
          asked = parseRetryAfter(res.headers.get('retry-after'));
          // The service said when; past the cap the caller decides, and the shared pause of the
          // other requests is cut to the cap (an hour, or year 9999, must not stall them).
          const capped = asked && Math.min(asked, backoff.maxRetryAfterMs);
          config.pacer?.onAnswer(res.status, capped, attempt.sentAt);
          if (!(await worthRetrying(res, idempotent)) || capped !== asked) return res;
        } else {
          config.logger?.debug?.(failure.message, { attempt: n + 1 });
          // A request that may have reached the service is never sent again (unknown outcome).
          // A failure that a retry cannot help (https to a plain-http port) is final.
          if (failure.mayHaveBeenCreated || classifyNetworkFailure(failure)?.final) throw failure;
        }
        const outcome = () => {
          if (res) return res;
          throw failure;
        };
        let waitMs = asked ?? backoffDelay(n, backoff.initialDelayMs, backoff.maxDelayMs);
        // The service is down or cannot be reached: with `retryForMs`, its window decides.
        const outage = retryForMs > 0 && outageOf(res, failure);
        if (outage) {
          outageEnds ??= Date.now() + retryForMs;
          const left = outageEnds - Date.now();
          if (left <= 0) return outcome();
          waitMs = Math.min(waitMs, left);
          // Never a silent wait: one line per attempt, to the logger or else the console.
          (config.logger?.warn ?? console.warn)(
            `${method} ${request.url}: ${outage}; trying again in ${seconds(waitMs)}, ` +
              `for up to ${seconds(left)} more`,
            { waitMs, retryForLeftMs: left },
          );
        } else {
          outageEnds = undefined;
          // No wait past the deadline: the last answer or failure is the request's outcome.
          if (retries >= maxRetries || deadline.passedBy(waitMs)) return outcome();
          if (
            !answered &&
            retries >= (config.unreachableRetries ?? Number.POSITIVE_INFINITY) &&
            isUnreachable(failure)
          ) {
            return outcome();
          }
          retries++;
          config.logger?.warn?.(
            `retrying ${method} ${request.url} in ${waitMs} ms (retry ${retries} of ${maxRetries})`,
            { retry: retries, waitMs },
          );
        }
        count('retries');
        if (res?.status === 429) count('rateLimitWaitMs', waitMs);
        span?.retrying(
          res ? String(res.status) : errorType(failure),
          n + 1,
          waitMs,
          asked !== undefined,
        );
        await sleep(waitMs, callerSignal);
        // Time spent waiting out an outage is not the request's: its deadline starts again.
        if (outage) deadline = deadlineOf(config.deadlineMs);
      }
    }
  }

  async function sendOnce(
    build: (signal: AbortSignal) => Request,
    ctx: {
      callerSignal: AbortSignal;
      timeoutMs: number;
      deadline: Deadline;
      idempotent: boolean;
      where: { method: string; url: string };
      headers: Headers;
      body: ArrayBuffer | undefined;
      span: RequestSpan | undefined;
      count: Count;
    },
  ): Promise<Attempt> {
    ctx.callerSignal.throwIfAborted();
    // One fresh controller per attempt, linked to the caller's signal by a listener that is
    // removed afterwards. This is AbortSignal.any by hand: a Request built on a long-lived signal
    // (or on AbortSignal.any of one) leaves a listener on it in undici, ~1.3 kB per request, which
    // made a 3,000-page export grow the heap (bench/client).
    const attempt = new AbortController();
    const onCallerAbort = () => attempt.abort(ctx.callerSignal.reason);
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the listener is removed in `finally` anyway
    ctx.callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    let timedOut = false;
    // The attempt's own timeout, or what is left of the request's deadline when that is sooner.
    const left = ctx.deadline.left();
    const timeoutMs = Math.min(ctx.timeoutMs, left, MAX_TIMER_MS);
    // setTimeout rather than AbortSignal.timeout: fake timers drive it in tests, and it is cleared.
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.abort();
    }, timeoutMs);
    const signal = attempt.signal;
    const base = config.fetch ?? globalThis.fetch;
    /** Whether the pacer let the request go: until then it surely was not sent. */
    let released = !config.pacer;
    let sentAt: number | undefined;
    try {
      // The pacer's hold after a 429 is part of the attempt: under its timeout and signal.
      if (config.pacer) {
        // Held back by the rate controller: its own wait (RatePacer.acquire), not the time this
        // code takes to resume, nor what two readings of the clock differ by under load.
        const { sentAt: at, heldMs } = await config.pacer.acquire(signal);
        sentAt = at;
        released = true;
        if (heldMs > 0) {
          ctx.count('rateLimitWaitMs', heldMs);
          ctx.span?.paced(heldMs);
        }
      }
      ctx.count('requests');
      ctx.count('bytesSent', ctx.body?.byteLength ?? 0);
      // Each attempt on the wire is a span of its own: its request carries that span's W3C trace
      // context, so the service's spans join the trace under the attempt that reached it.
      for (const [name, value] of Object.entries(ctx.span?.attempt() ?? {})) {
        ctx.headers.set(name, value);
      }
      const res = await followSameOrigin(build(signal), base, ctx, signal);
      // Read the body inside the timeout, so a stalled body is a timeout too, not a hang.
      const read = NULL_BODY_STATUS.has(res.status)
        ? null
        : await readCapped(res, config.maxResponseBytes, ctx.where, signal);
      for (const chunk of read ?? []) ctx.count('bytesReceived', chunk.byteLength);
      // Bytes that are not UTF-8 reach a JSON answer's parser as lone surrogates, not U+FFFD
      // (utf8-escape.ts): a consumer can tell them from real text (D29).
      const chunks =
        // Stryker disable next-line StringLiteral: without a content type any text without "json" reads the same
        read && /\bjson\b/i.test(res.headers.get('content-type') ?? '')
          ? escapeInvalidUtf8(read)
          : read;
      // The body is decoded now: its encoding and length headers no longer describe it.
      const headers = new Headers();
      res.headers.forEach((value, name) => {
        headers.append(name, value);
      });
      headers.delete('content-encoding');
      headers.delete('content-length');
      return {
        // The chunks as read, in a stream over memory: a buffer body would be copied again.
        response: new Response(chunks && replay(chunks), {
          status: res.status,
          statusText: res.statusText,
          headers,
        }),
        sentAt,
      };
    } catch (error) {
      if (ctx.callerSignal.aborted) throw ctx.callerSignal.reason;
      if (error instanceof RcsError) throw error;
      // A certificate does not fix itself on a retry: final, with the remedy.
      const certificate = certificateFailure(error, new URL(ctx.where.url).host);
      if (certificate) throw certificate;
      // Provably never left this machine (network-failure.ts).
      const unsent = !released || classifyNetworkFailure(error)?.neverSent === true;
      // Once a non-idempotent request may have reached the service, its outcome is unknown; a
      // fetch that was still connecting (a proxy that never opened its tunnel) says it was not.
      if (timedOut) {
        return {
          // Stopped by the deadline: the line says the deadline, which is what the user set.
          // Stryker disable next-line EqualityOperator: at left === timeoutMs both limits end the attempt at the same instant; either is the limit that stopped it
          failure: new TimeoutError(left <= ctx.timeoutMs ? ctx.deadline.ms : ctx.timeoutMs, {
            ...ctx.where,
            mayHaveBeenCreated: !ctx.idempotent && !unsent,
            // What the fetch said when it was stopped (e.g. which proxy it went through).
            cause: error,
          }),
        };
      }
      return {
        failure: new ConnectionError(
          config.redact(
            `${ctx.where.method} ${ctx.where.url} failed: ${describe(error)}` +
              (!ctx.idempotent && !unsent
                ? '; the request may have reached the service, so it was not repeated'
                : '') +
              crossOriginHint(error, ctx.where.url),
          ),
          { ...ctx.where, cause: error, mayHaveBeenCreated: !ctx.idempotent && !unsent },
        ),
      };
    } finally {
      clearTimeout(timer);
      ctx.callerSignal.removeEventListener('abort', onCallerAbort);
    }
  }
}

/**
 * Follows redirects (those `redirect: 'manual'` handed back) within the same origin only: a
 * redirect to another origin or scheme would carry the credentials there, so it is refused with
 * an error that names the target. Not retried: the service answered.
 */
async function followSameOrigin(
  first: Request,
  base: FetchFunction,
  ctx: { headers: Headers; body: ArrayBuffer | undefined },
  signal: AbortSignal,
): Promise<FetchResponse> {
  let request = first;
  for (let hops = 0; ; hops++) {
    const res = await base(request);
    if (first.redirect !== 'manual') return res;
    if (res.type !== 'opaqueredirect' && !REDIRECT_STATUS.has(res.status)) return res;
    await res.body?.cancel();
    const location = res.headers.get('location');
    const from = new URL(request.url);
    // An opaque redirect (what `redirect: 'manual'` gives in a browser) has no readable location.
    if (!location) {
      throw new RcsError(`${request.method} ${from.href} was redirected to an unreadable location`);
    }
    const to = new URL(location, from);
    if (to.origin !== from.origin) {
      throw new RcsError(
        `${request.method} ${from.href} was redirected to ${to.origin}; credentials are not sent ` +
          'to another origin. If that service is trusted, use it as baseUrl.',
      );
    }
    if (hops >= MAX_REDIRECTS) {
      throw new RcsError(`${first.method} ${first.url}: more than ${MAX_REDIRECTS} redirects`);
    }
    // 307/308 repeat the request as it was; 301/302/303 turn a POST into a GET (fetch's rule).
    // (A GET stays a GET either way: it has no body to drop.)
    const keep = res.status === 307 || res.status === 308;
    request = new Request(to, {
      method: keep ? request.method : 'GET',
      headers: ctx.headers,
      body: keep ? ctx.body : undefined,
      redirect: 'manual',
      signal,
    });
  }
}

/**
 * A request's deadline (none: at infinity): `ms` as configured, for messages; `left()` at least
 * 1 ms, so that a timer still runs and fails the attempt; `passedBy(ms)`: whether waiting `ms`
 * more would reach it.
 */
function deadlineOf(deadlineMs = Number.POSITIVE_INFINITY) {
  const end = Date.now() + deadlineMs;
  return {
    ms: deadlineMs,
    left: () => Math.max(1, end - Date.now()),
    // Stryker disable next-line EqualityOperator: a wait that ends exactly at the deadline leaves no time for an attempt either way
    passedBy: (ms: number) => Date.now() + ms >= end,
  };
}
type Deadline = ReturnType<typeof deadlineOf>;
