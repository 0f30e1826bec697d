/**
 * The CLI's one HTTP stack (issue 27): every request, direct or through a proxy, goes through
 * undici's `request` API with a dispatcher made here, wrapped as the `fetch` the SDK client takes.
 * The client's transport keeps its job (retries, deadline, size cap, redirects, typed errors);
 * this module decides the route, keeps connections, and classifies failures (failure.ts).
 *
 * `request` rather than undici's `fetch`: the client reads every answer whole, so fetch's own
 * Request, Response and stream objects per request were pure overhead: an export spends about
 * 15 % less CPU, and its heap stays smaller (bench/export/README.md).
 *
 * Under Bun and Deno the CLI leaves the runtime's own fetch in place (they read the proxy
 * variables themselves).
 */

import { STATUS_CODES } from 'node:http';
import { RcsError } from '@rcs/client';
import { isLoopbackHost } from '@rcs/client/internal';
import {
  Agent,
  type Dispatcher,
  interceptors,
  Pool,
  ProxyAgent,
  request as undiciRequest,
} from 'undici';
import { decodeContent } from './content-coding.js';
import {
  classifyFailure,
  describeFailure,
  ProxiedFailure,
  type ProxyInUse,
  ProxyTunnelError,
  proxyOf,
} from './failure.js';
import { noProxyMatches, type ProxySettings, type ProxyVariable, showProxy } from './proxy.js';

/**
 * Connecting (TCP, then the proxy's answer to CONNECT) gets at most this long per attempt, like
 * undici's own connect timeout: a proxy that never answers is a failed attempt, retried within
 * the request's deadline, and leaves no socket behind that would keep the process alive.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/** Connections kept per origin: the CLI's largest --concurrency. */
const CONNECTIONS_PER_ORIGIN = 64;

/** A failure that a retry cannot help (a 407, plain http on an https:// port): final. */
class NetworkFailureError extends RcsError {
  override name = 'NetworkFailureError';
}

/** Whether this runtime is Node itself (Bun and Deno ship their own fetch). */
function isNode(): boolean {
  const versions = process.versions as Record<string, string | undefined>;
  return versions.bun === undefined && versions.deno === undefined && !('Deno' in globalThis);
}

function inUse(proxy: ProxyVariable): ProxyInUse {
  const url = new URL(proxy.url);
  return {
    shown: showProxy(proxy.url),
    variable: proxy.variable,
    hasCredentials: url.username !== '' || url.password !== '',
  };
}

/**
 * The proxy's own pool, whose CONNECT fails with a ProxyTunnelError: a 407 or another status, a
 * proxy that closes the connection, refuses it or never answers. undici would otherwise treat a
 * closed CONNECT as a socket error to reconnect after at once (thousands a second, issue 25).
 */
function tunnelPool(proxy: ProxyInUse, connectTimeoutMs: number) {
  return (origin: URL, options: object): Dispatcher => {
    const pool = new Pool(origin, options);
    const connect = pool.connect.bind(pool) as (
      options: Dispatcher.ConnectOptions,
    ) => Promise<Dispatcher.ConnectData>;
    return Object.assign(pool, {
      async connect(params: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> {
        const target = params.path;
        let data: Dispatcher.ConnectData;
        try {
          data = await connect({ ...params, signal: AbortSignal.timeout(connectTimeoutMs) });
        } catch (error) {
          throw new ProxyTunnelError(tunnelFailureKind(error), proxy, target, { cause: error });
        }
        if (data.statusCode === 200) return data;
        data.socket.destroy();
        const kind = data.statusCode === 407 ? 'proxy-auth' : 'proxy-status';
        throw new ProxyTunnelError(kind, proxy, target, { status: data.statusCode });
      },
    });
  };
}

/** Why the CONNECT failed: the proxy refused, was not found, closed, or did not answer. */
function tunnelFailureKind(error: unknown): ProxyTunnelError['kind'] {
  const kind = classifyFailure(error)?.kind;
  if (kind === 'refused' || kind === 'unreachable') return 'proxy-refused';
  if (kind === 'dns') return 'proxy-dns';
  if (kind === 'connect-timeout') return 'proxy-no-answer';
  // undici's abort of the CONNECT at the connect timeout (no code of the kinds above).
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return 'proxy-no-answer';
  }
  if ((error as { code?: unknown })?.code === 'UND_ERR_ABORTED') return 'proxy-no-answer';
  return 'proxy-dropped';
}

/** fetch's limit on redirects followed. */
const MAX_REDIRECTS = 20;

/** Statuses whose answer has no body (fetch's null body statuses). */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

type Answer = Dispatcher.ResponseData<null>;

/**
 * The answer as the platform's Response, its body read from undici's stream as the transport
 * asks for it (the transport caps its size and may cancel it, which closes the connection).
 */
function responseOf(answer: Answer, method: string, signal: AbortSignal): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.append(name, value);
    else for (const each of value ?? []) headers.append(name, each);
  }
  const init = {
    status: answer.statusCode,
    statusText: answer.statusText || STATUS_CODES[answer.statusCode] || '',
    headers,
  };
  // (A HEAD answer's headers describe a body that is not there.)
  if (NULL_BODY_STATUS.has(answer.statusCode) || method === 'HEAD') {
    answer.body.dump().catch(() => {});
    return new Response(null, init);
  }
  const body = decodeContent(answer.body, headers.get('content-encoding') ?? undefined);
  const chunks = body[Symbol.asyncIterator]();
  // The request's signal ends a body that stalls (the transport's timeout and deadline abort it),
  // whatever state undici's stream is in when it fires.
  // (The listener goes with the body, so a long-lived signal does not collect one per answer.)
  const stopped = new Promise<never>((_resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => signal.removeEventListener('abort', onAbort));
  });
  stopped.catch(() => body.destroy());
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await Promise.race([chunks.next(), stopped]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          // A body cut short, as fetch reports it.
          controller.error(new TypeError('terminated', { cause: error }));
        }
      },
      cancel(reason) {
        body.destroy(reason instanceof Error ? reason : undefined);
      },
    }),
    init,
  );
}

/** The options of every dispatcher: keep-alive, no pipelining, a bounded connect. */
function agentOptions(connectTimeoutMs: number): Agent.Options {
  return {
    connections: CONNECTIONS_PER_ORIGIN,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    connect: { timeout: connectTimeoutMs },
  };
}

/**
 * The fetch for the SDK client on Node, or undefined elsewhere (Bun, Deno). `deadlineMs` is the
 * request's whole deadline: no attempt's connection waits longer than it.
 */
export function createNetworkFetch(
  settings: ProxySettings | undefined,
  deadlineMs: number,
): typeof fetch | undefined {
  if (!isNode()) return undefined;
  // A little past a short deadline, so that the deadline's own line ends the request (it names
  // the request), and the connection still goes away right after it.
  const connectTimeoutMs = Math.min(CONNECT_TIMEOUT_MS, deadlineMs + 1_000);
  const direct = new Agent(agentOptions(connectTimeoutMs));
  // A request that carries credentials comes with `redirect: 'manual'`: the transport follows
  // same-origin redirects itself. Any other request follows them here, as fetch would.
  const following = new Map<Dispatcher, Dispatcher>();
  const withRedirects = (dispatcher: Dispatcher, redirect: RequestRedirect): Dispatcher => {
    if (redirect === 'manual') return dispatcher;
    let follower = following.get(dispatcher);
    if (!follower) {
      follower = dispatcher.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS }));
      following.set(dispatcher, follower);
    }
    return follower;
  };
  const routes = new Map<string, { proxy: ProxyInUse; dispatcher: Dispatcher }>();
  for (const [scheme, variable] of [
    ['https:', settings?.httpsProxy],
    ['http:', settings?.httpProxy],
  ] as const) {
    if (!variable) continue;
    const proxy = inUse(variable);
    const dispatcher = new ProxyAgent({
      ...agentOptions(connectTimeoutMs),
      uri: variable.url,
      clientFactory: tunnelPool(proxy, connectTimeoutMs),
    });
    routes.set(scheme, { proxy, dispatcher });
  }

  /** The proxy for a URL's scheme (https never through HTTP_PROXY, as in curl), or none. */
  const routeOf = (url: URL) => {
    // Loopback never goes through a proxy (Go's net/http): `rcs mock` works on a proxied machine.
    if (isLoopbackHost(url.hostname)) return undefined;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    if (noProxyMatches(settings?.noProxy, url.hostname, port)) return undefined;
    return routes.get(url.protocol);
  };

  return (async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request =
      input instanceof Request && init === undefined ? input : new Request(input, init);
    const url = new URL(request.url);
    const route = routeOf(url);
    try {
      const answer = await undiciRequest(request.url, {
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body === null ? null : Buffer.from(await request.arrayBuffer()),
        signal: request.signal,
        dispatcher: withRedirects(route?.dispatcher ?? direct, request.redirect),
      });
      return responseOf(answer, request.method, request.signal);
    } catch (thrown) {
      // Failures as fetch gives them (a TypeError over undici's error), so that every runtime's
      // fetch and this one read the same to the transport; a stopped request keeps its reason.
      const error = request.signal.aborted
        ? thrown
        : new TypeError('fetch failed', { cause: thrown });
      // Names the proxy for the line a failure ends in; a tunnel failure already does (and its
      // codes stay within the depth the transport reads them at).
      const failure = route && !proxyOf(error) ? new ProxiedFailure(route.proxy, error) : error;
      const classified = classifyFailure(failure);
      if (classified?.final && !request.signal.aborted) {
        throw new NetworkFailureError(describeFailure(classified, request.url), {
          cause: failure,
        });
      }
      throw failure;
    }
  }) as typeof fetch;
}
