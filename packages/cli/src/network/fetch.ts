/**
 * The CLI's one HTTP stack (issue 27): every request, direct or through a proxy, goes through
 * undici's `fetch` with a dispatcher made here, handed to the SDK client as its `fetch`. The
 * client's transport keeps its job (retries, deadline, size cap, redirects, typed errors); this
 * module decides the route, keeps connections, and classifies failures (failure.ts).
 *
 * Under Bun and Deno the CLI leaves the runtime's own fetch in place (they read the proxy
 * variables themselves).
 */
import { isLoopbackHost, RcsError } from '@rcs/client';
import { Agent, type Dispatcher, Pool, ProxyAgent, fetch as undiciFetch } from 'undici';
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

/**
 * undici's body is Node's web ReadableStream, the very class of the platform's; typed apart
 * (node:stream/web against the DOM's), so the boundary checks it once instead of casting.
 */
function platformStream(body: unknown): ReadableStream<Uint8Array> | null {
  if (body === null) return null;
  if (body instanceof ReadableStream) return body;
  throw new TypeError('fetch gave a body that is not a ReadableStream');
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
      // undici's fetch takes its own Request class only, so the request is passed as its parts.
      const answer = await undiciFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body: request.body === null ? null : await request.arrayBuffer(),
        redirect: request.redirect,
        signal: request.signal,
        dispatcher: route?.dispatcher ?? direct,
      });
      // The platform's Response over undici's body stream (the same stream: nothing is copied).
      return new Response(platformStream(answer.body), {
        status: answer.status,
        statusText: answer.statusText,
        headers: [...answer.headers],
      });
    } catch (error) {
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
