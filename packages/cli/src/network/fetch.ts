/**
 * The CLI's one HTTP stack: undici's `fetch`, with a dispatcher made here for every request,
 * direct or through a proxy (keep-alive, the proxy's tunnel, NODE_EXTRA_CA_CERTS through Node's
 * TLS). Decoding, its limits, redirects, null bodies and abort are undici's; the client's
 * transport keeps its job (retries, deadline, size cap, same-origin redirects with credentials,
 * typed errors). What only the CLI adds: the route (proxy or not), the proxy's own failures
 * (failure.ts), and whether a failed request had reached a connection at all.
 *
 * Under Bun and Deno the CLI leaves the runtime's own fetch in place (they read the proxy
 * variables themselves).
 */

import {
  classifyNetworkFailure,
  type ProxyInUse,
  RcsError,
  RequestNotSentError,
} from '@rcs/client';
import { isLoopbackHost, ProxiedFailure, ProxyTunnelError, proxyOf } from '@rcs/client/internal';
import {
  Agent,
  type Dispatcher,
  Pool,
  ProxyAgent,
  type Response,
  fetch as undiciFetch,
} from 'undici';
import { describeFailure } from './failure.js';
import { noProxyMatches, type ProxySettings, type ProxyVariable, showProxy } from './proxy.js';

/**
 * Connecting (TCP, then the proxy's answer to CONNECT) gets at most this long per attempt, like
 * undici's own connect timeout: a proxy that never answers is a failed attempt, retried within
 * the request's deadline, and leaves no socket behind that would keep the process alive.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/** Connections kept per origin: the CLI's largest --concurrency. */
const CONNECTIONS_PER_ORIGIN = 64;

/**
 * A proxy's refusal (407, 403), which a retry cannot help: an RcsError, which the client's
 * transport passes on as it is, unretried (the contract of the client's `fetch` option).
 */
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
 * closed CONNECT as a socket error to reconnect after at once (thousands a second).
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
  const kind = classifyNetworkFailure(error)?.kind;
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
 * The dispatcher for one request, which calls `onWire` when undici puts the request on a
 * connection (TCP, TLS and the proxy's tunnel all done) and writes it: before that, a failure or
 * an abort means the request never left this machine.
 */
function watched(dispatcher: Dispatcher, onWire: () => void): Dispatcher {
  return dispatcher.compose(
    (dispatch) => (options, handler) =>
      dispatch(options, {
        onRequestStart(controller, context) {
          onWire();
          handler.onRequestStart?.(controller, context);
        },
        onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
        onResponseStart: (...args) => handler.onResponseStart?.(...args),
        onResponseData: (...args) => handler.onResponseData?.(...args),
        onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
        onResponseError: (...args) => handler.onResponseError?.(...args),
      }),
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
 * request's whole deadline: no attempt's connection waits longer than it. Its answer is undici's
 * `Response`, which the client's `fetch` option takes as it is (FetchResponse).
 */
export function createNetworkFetch(
  settings: ProxySettings | undefined,
  deadlineMs: number,
): ((request: Request) => Promise<Response>) | undefined {
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

  return async (request) => {
    const route = routeOf(new URL(request.url));
    let onWire = false;
    try {
      // The platform's Request is not undici's (another copy of the library): its parts are
      // handed over one by one. (Bodies are small and buffered by the transport anyway, D2.)
      return await undiciFetch(request.url, {
        method: request.method,
        headers: [...request.headers],
        body: request.body === null ? null : await request.arrayBuffer(),
        redirect: request.redirect,
        signal: request.signal,
        dispatcher: watched(route?.dispatcher ?? direct, () => {
          onWire = true;
        }),
      });
    } catch (thrown) {
      // Names the proxy for the line a failure ends in; a tunnel failure already does.
      let failure = route && !proxyOf(thrown) ? new ProxiedFailure(route.proxy, thrown) : thrown;
      // Stopped or failed before undici wrote it on a connection: the request never left this
      // machine, whatever stopped it (the transport's deadline while a proxy did not answer).
      if (!onWire && !(failure instanceof RequestNotSentError)) {
        failure = new RequestNotSentError('the request was not sent', { cause: failure });
      }
      const classified = classifyNetworkFailure(failure);
      // A proxy's refusal (407, 403) does not change on a retry: final, with its own line.
      if (classified?.final && classified.kind.startsWith('proxy-') && !request.signal.aborted) {
        throw new NetworkFailureError(describeFailure(classified, request.url), {
          cause: failure,
        });
      }
      throw failure;
    }
  };
}
