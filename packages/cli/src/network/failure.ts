/**
 * One classification of network failures for every request of the CLI, direct or through a
 * proxy (issue 27: one HTTP stack; issue 25 item 7; issue 28's plain-http hint). A failure is
 * read from its cause chain (fetch wraps the socket's error a few levels deep), and the same
 * kind gives the same line and the same retry decision wherever it came from.
 *
 * This module has no dependency (errors.ts reads it at start-up, without the client).
 */

/** What went wrong, in the user's terms. */
export type FailureKind =
  /** Nothing listens at the address (ECONNREFUSED). */
  | 'refused'
  /** The host name resolves nowhere (ENOTFOUND, EAI_AGAIN). */
  | 'dns'
  /** No route to the network or host. */
  | 'unreachable'
  /** The TCP connection was not set up in time. */
  | 'connect-timeout'
  /** The connection was reset or closed by the other side, a body cut short included. */
  | 'reset'
  /** `https://` to a port that answers in plain HTTP (OpenSSL's "wrong version number"). */
  | 'plain-http'
  /** Another TLS protocol failure (certificates are the client's CertificateError). */
  | 'tls'
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
 * The proxy did not open the tunnel (CONNECT). Its code is Chromium's name for this failure: it
 * is also what tells the client's transport that the request never left this machine (so even a
 * create POST may be repeated), and it is not undici's UND_ERR_SOCKET, which undici answers by
 * reconnecting at once, forever: the CONNECT flood of issue 25 item 7.
 */
export class ProxyTunnelError extends Error {
  override name = 'ProxyTunnelError';
  readonly code = 'ERR_TUNNEL_CONNECTION_FAILED';
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

const BY_CODE: Record<string, Exclude<FailureKind, `proxy-${string}`>> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  ENETUNREACH: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
  ETIMEDOUT: 'connect-timeout',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  ERR_SSL_WRONG_VERSION_NUMBER: 'plain-http',
  EPROTO: 'tls',
};

/** OpenSSL's words when the other side answered a TLS hello in plain text. */
const PLAIN_HTTP_SAYS = /wrong version number|packet length too long|http request/i;

/** How far down a cause chain to look (fetch → undici → socket, with our wrappers on top). */
const MAX_DEPTH = 6;

/** The classification of an error, or undefined when it is not a network failure. */
export function classifyFailure(error: unknown): NetworkFailure | undefined {
  let proxy: ProxyInUse | undefined;
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof ProxyTunnelError || hasName(e, 'ProxyTunnelError')) {
      const t = e as ProxyTunnelError;
      return {
        kind: t.kind,
        code: codeBelow(t.cause) ?? t.code,
        final: t.kind === 'proxy-auth' || (t.kind === 'proxy-status' && isFinalStatus(t.status)),
        proxy: t.proxy,
        status: t.status,
        target: t.target,
      };
    }
    if (e instanceof ProxiedFailure || hasName(e, 'ProxiedFailure')) {
      proxy ??= (e as ProxiedFailure).proxy;
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(BY_CODE, code)) {
      let kind = BY_CODE[code] as FailureKind;
      const message = String((e as { message?: unknown }).message ?? '');
      if (kind === 'tls' && PLAIN_HTTP_SAYS.test(message)) kind = 'plain-http';
      return {
        kind,
        code,
        final: kind === 'plain-http' || kind === 'tls',
        ...(proxy ? { proxy } : {}),
      };
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A 4xx of a proxy is its decision (403: not allowed); 408, 429 and 5xx may pass. */
function isFinalStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function hasName(e: object, name: string): boolean {
  return (e as { name?: unknown }).name === name;
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
};

/**
 * The one line for a network failure (issue 25 item 7, issue 28). `where` is the URL the request
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
    case 'plain-http':
      return `this server speaks plain http; use ${plainUrl(where)} in --base-url / RCS_BASE_URL (${originOf(where)} answered without TLS)`;
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
        return `could not reach the service through the proxy ${named}: ${what}; check --base-url / RCS_BASE_URL and the proxy`;
      }
      return `could not reach the service: ${what}; check --base-url / RCS_BASE_URL and your network`;
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

/** The http:// URL a plain-http port is reached at: the same origin with the other scheme. */
function plainUrl(where: string | undefined): string {
  if (!where) return 'an http:// base URL';
  try {
    const url = new URL(where);
    // The port it was reached on: for an https:// URL without one, that is 443, not http's 80.
    return `http://${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return 'an http:// base URL';
  }
}
