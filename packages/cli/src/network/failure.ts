/**
 * The CLI's lines for network failures, direct or through a proxy (cli.md "Networks"). Which
 * kind a failure is, whether it never left this machine and whether a retry can help come from
 * the client's one classifier (`classifyNetworkFailure`), which the client's transport reads
 * too; this module adds what only the CLI knows: the proxy a request went through, and how its
 * CONNECT failed.
 */
import { classifyNetworkFailure, type NetworkFailureKind, RequestNotSentError } from '@rcs/client';
import { baseUrlHint } from '../errors.js';

/** What went wrong, in the user's terms. */
export type FailureKind =
  | Exclude<NetworkFailureKind, 'not-sent'>
  /** The proxy refused the connection. */
  | 'proxy-refused'
  /** The proxy's host name resolves nowhere. */
  | 'proxy-dns'
  /** The proxy accepted the connection and closed it without opening the tunnel. */
  | 'proxy-dropped'
  /** The proxy did not answer the CONNECT in time. */
  | 'proxy-no-answer'
  /** The proxy answered 407: it wants credentials, or refused those it was given. */
  | 'proxy-auth'
  /** The proxy answered the CONNECT with another status (403, 502, …). */
  | 'proxy-status';

export interface NetworkFailure {
  kind: FailureKind;
  /** The system or library code the kind was read from, when there is one. */
  code: string | undefined;
  /** Whether a retry cannot help (the same request would fail the same way). */
  final: boolean;
  /** The proxy the request went through, as it may be shown (no credentials). */
  proxy?: ProxyInUse | undefined;
  /** The proxy's status for `proxy-status` and `proxy-auth`. */
  status?: number | undefined;
  /** The `host:port` a proxy was asked to open a tunnel to. */
  target?: string | undefined;
}

/** A proxy as it may be shown: `http://host:port`, the variable it came from, and whether it carries credentials. */
export interface ProxyInUse {
  shown: string;
  variable: string;
  hasCredentials: boolean;
}

/**
 * The proxy did not open the tunnel (CONNECT), so the request never left this machine: a
 * `RequestNotSentError`, which tells the client's transport that even a create POST may be sent
 * again. It carries no socket code of its own: undici answers UND_ERR_SOCKET on a connect by
 * reconnecting at once, forever (the CONNECT flood cli.md "Networks" rules out).
 */
export class ProxyTunnelError extends RequestNotSentError {
  override name = 'ProxyTunnelError';
  constructor(
    readonly kind: Extract<FailureKind, `proxy-${string}`>,
    readonly proxy: ProxyInUse,
    readonly target: string,
    options: { cause?: unknown; status?: number | undefined } = {},
  ) {
    super(tunnelMessage(kind, proxy, target, options.status), { cause: options.cause });
    this.status = options.status;
  }
  readonly status: number | undefined;
}

/** A failure of a request sent through a proxy, wrapped so that the line can name the proxy. */
export class ProxiedFailure extends Error {
  override name = 'ProxiedFailure';
  constructor(
    readonly proxy: ProxyInUse,
    cause: unknown,
  ) {
    super('fetch failed', { cause });
  }
}

function tunnelMessage(
  kind: FailureKind,
  proxy: ProxyInUse,
  target: string,
  status: number | undefined,
): string {
  switch (kind) {
    case 'proxy-auth':
      return `the proxy ${proxy.shown} answered 407 to CONNECT ${target}`;
    case 'proxy-status':
      return `the proxy ${proxy.shown} answered ${status} to CONNECT ${target}`;
    case 'proxy-no-answer':
      return `the proxy ${proxy.shown} did not answer CONNECT ${target}`;
    case 'proxy-dropped':
      return `the proxy ${proxy.shown} closed the connection instead of opening a tunnel to ${target}`;
    default:
      return `could not connect to the proxy ${proxy.shown}`;
  }
}

/** How far down a cause chain to look (fetch → undici → socket, with our wrappers on top). */
const MAX_DEPTH = 6;

/** The classification of an error, or undefined when it is not a network failure. */
export function classifyFailure(error: unknown): NetworkFailure | undefined {
  let proxy: ProxyInUse | undefined;
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof ProxyTunnelError) {
      return {
        kind: e.kind,
        code: codeBelow(e.cause),
        final: e.kind === 'proxy-auth' || (e.kind === 'proxy-status' && isFinalStatus(e.status)),
        proxy: e.proxy,
        status: e.status,
        target: e.target,
      };
    }
    if (e instanceof ProxiedFailure) proxy ??= e.proxy;
    e = (e as { cause?: unknown }).cause;
  }
  const failure = classifyNetworkFailure(error);
  // (A request stopped before it was sent, with nothing more said: the caller's own words.)
  if (failure === undefined || failure.kind === 'not-sent') return undefined;
  return {
    kind: failure.kind,
    code: failure.code,
    final: failure.final,
    ...(proxy ? { proxy } : {}),
  };
}

/** A 4xx of a proxy is its decision (403: not allowed); 408, 429 and 5xx may pass. */
function isFinalStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function codeBelow(cause: unknown): string | undefined {
  let e = cause;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What happened, for a direct failure of this kind. */
const DIRECT: Record<Exclude<FailureKind, `proxy-${string}`>, string> = {
  refused: 'connection refused',
  dns: 'the host name resolves nowhere',
  unreachable: 'no route to the host',
  'connect-timeout': 'the connection was not set up in time',
  reset: 'the connection was closed before the answer ended',
  'plain-http': 'this server speaks plain http',
  tls: 'the TLS handshake failed',
  'blocked-port': 'fetch refuses this port',
};

/**
 * The one line for a network failure. `where` is the URL the request
 * went to. A proxy is named as it may be shown, with the variable it came from, never with its
 * credentials.
 */
export function describeFailure(failure: NetworkFailure, where: string | undefined): string {
  const code = failure.code ? ` (${failure.code})` : '';
  const proxy = failure.proxy;
  const named = proxy ? `${proxy.shown} (${proxy.variable})` : 'the proxy';
  const variable = proxy?.variable ?? 'HTTPS_PROXY';
  const target = failure.target ?? originOf(where);
  switch (failure.kind) {
    case 'blocked-port':
      return `cannot send to ${originOf(where)}: fetch refuses ${blockedPort(where)}, one of the ports the Fetch standard blocks because other protocols use them; run the service on another port and set ${baseUrlHint()} to it`;
    case 'plain-http':
      return `this server speaks plain http; use ${plainUrl(where)} in ${baseUrlHint()} (${originOf(where)} answered without TLS)`;
    case 'proxy-auth':
      return proxy?.hasCredentials
        ? `the proxy asked for credentials (407) and refused those in ${variable} (${proxy.shown}); check the user name and password`
        : `the proxy asked for credentials (407): add them to ${variable} as user:password@ before the proxy's host (${proxy?.shown ?? 'the proxy'})`;
    case 'proxy-refused':
      return `could not connect to the proxy ${named}: connection refused${code}; check that the proxy runs and that ${variable} is its address`;
    case 'proxy-dns':
      return `could not connect to the proxy ${named}: its host name resolves nowhere${code}; check ${variable}`;
    case 'proxy-dropped':
      return `the proxy ${named} closed the connection instead of opening a tunnel to ${target}; check ${variable} and NO_PROXY, or ask the proxy's administrator`;
    case 'proxy-no-answer':
      return `the proxy ${named} did not answer CONNECT ${target}; check ${variable}, or whether this network needs a proxy at all`;
    case 'proxy-status':
      return failure.final
        ? `the proxy ${named} refused to open a tunnel to ${target} (${failure.status}); ask the proxy's administrator, or list the host in NO_PROXY if it is reachable directly`
        : `the proxy ${named} answered ${failure.status} to CONNECT ${target}; try again later`;
    default: {
      const what = `${DIRECT[failure.kind]}${code} at ${where ?? 'the service'}`;
      if (proxy) {
        return `could not reach the service through the proxy ${named}: ${what}; check ${baseUrlHint()} and the proxy`;
      }
      return `could not reach the service: ${what}; check ${baseUrlHint()} and your network`;
    }
  }
}

/** The proxy a failed request went through, from its cause chain, if it went through one. */
export function proxyOf(error: unknown): ProxyInUse | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof ProxiedFailure || e instanceof ProxyTunnelError) return e.proxy;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function originOf(where: string | undefined): string {
  if (!where) return 'the service';
  try {
    return new URL(where).origin;
  } catch {
    return where;
  }
}

/** The port a URL is reached on: its own, or its scheme's (443 for https://, not http's 80). */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** "port N" of a URL fetch refused, as the user wrote it in the base URL. */
function blockedPort(where: string | undefined): string {
  try {
    return `port ${portOf(new URL(where ?? ''))}`;
  } catch {
    return 'the port of this URL';
  }
}

/** The http:// URL a plain-http port is reached at: the same origin with the other scheme. */
function plainUrl(where: string | undefined): string {
  if (!where) return 'an http:// base URL';
  try {
    const url = new URL(where);
    return `http://${url.hostname}:${portOf(url)}`;
  } catch {
    return 'an http:// base URL';
  }
}
