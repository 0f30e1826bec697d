/**
 * The one classification of network failures (a request that got no answer), shared by the
 * client's transport and the CLI: what kind of failure it was, whether the request surely never
 * left this machine (then even a create POST may be sent again), whether a retry can help, and
 * the proxy it went through when a fetch named one.
 *
 * A failure is read from its cause chain (`causeChain`, the one walk of it): fetch wraps the
 * system error (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, …) a few levels deep (`TypeError('fetch
 * failed')` → undici's error → the socket's), and a fetch of a caller's own may add its wrappers
 * on top (`ProxiedFailure`, `ProxyTunnelError`: the `rcs` command's proxy support).
 */

/** What went wrong below HTTP. */
export type NetworkFailureKind =
  /** Nothing listens at the address (ECONNREFUSED). */
  | 'refused'
  /** The host name resolves nowhere (ENOTFOUND, EAI_AGAIN). */
  | 'dns'
  /** No route to the network or host. */
  | 'unreachable'
  /** The connection was not set up in time. */
  | 'connect-timeout'
  /** The connection was reset or closed by the other side, a body cut short included. */
  | 'reset'
  /** `https://` to a port that answers in plain HTTP (OpenSSL's "wrong version number"). */
  | 'plain-http'
  /** Another TLS protocol failure (certificates are `CertificateError`, certificate.ts). */
  | 'tls'
  /**
   * fetch refuses the URL's port before connecting: the Fetch standard blocks a list of ports
   * (6000, 6665–6669, 10080 …) that other protocols use. Every try fails the same way.
   */
  | 'blocked-port'
  /** The fetch said the request never left this machine (`RequestNotSentError`). */
  | 'not-sent'
  /**
   * A proxy did not open the tunnel (`ProxyTunnelError`): it refused the connection, its name
   * resolves nowhere, it closed without a tunnel, it did not answer CONNECT in time, it answered
   * 407 (credentials missing or refused), or another status (403, 502, …).
   */
  | 'proxy-refused'
  | 'proxy-dns'
  | 'proxy-dropped'
  | 'proxy-no-answer'
  | 'proxy-auth'
  | 'proxy-status';

/** A proxy as it may be shown: `http://host:port`, the variable it came from, and whether it carries credentials. */
export interface ProxyInUse {
  shown: string;
  variable: string;
  hasCredentials: boolean;
}

export interface NetworkFailure {
  kind: NetworkFailureKind;
  /** The system or library code the kind was read from, when there is one. */
  code: string | undefined;
  /** The request surely never reached the service: repeating it cannot do anything twice. */
  neverSent: boolean;
  /** A retry cannot help: the same request would fail the same way. */
  final: boolean;
  /** The proxy the request went through, as it may be shown (no credentials). */
  proxy?: ProxyInUse | undefined;
  /** The proxy's status for `proxy-status` and `proxy-auth`. */
  status?: number | undefined;
  /** The `host:port` a proxy was asked to open a tunnel to. */
  target?: string | undefined;
}

/**
 * What a `fetch` given to the client rejects with when it knows that the request never left this
 * machine (a proxy that did not open its tunnel, a connection that was still being set up when
 * the request was stopped): the client may then send even a create POST again, and an upload cut
 * there is a failure, not an unknown outcome. Anything in its `cause` is kept for the message.
 */
export class RequestNotSentError extends Error {
  // Not an RcsError: a fetch throws it for the client to read, and the transport passes an
  // RcsError from a fetch on as it is, unretried (client.ts `fetch`).
  override name = 'RequestNotSentError';
}

/**
 * A proxy did not open the tunnel (CONNECT), so the request never left this machine; `kind` says
 * how. It carries no socket code of its own: undici answers UND_ERR_SOCKET on a connect by
 * reconnecting at once, forever (the CONNECT flood cli.md "Networks" rules out). @internal
 */
export class ProxyTunnelError extends RequestNotSentError {
  override name = 'ProxyTunnelError';
  constructor(
    readonly kind: Extract<NetworkFailureKind, `proxy-${string}`>,
    readonly proxy: ProxyInUse,
    readonly target: string,
    options: { cause?: unknown; status?: number | undefined } = {},
  ) {
    const status = options.status;
    super(
      kind === 'proxy-refused' || kind === 'proxy-dns'
        ? `could not connect to the proxy ${proxy.shown}`
        : kind === 'proxy-dropped'
          ? `the proxy ${proxy.shown} closed the connection instead of opening a tunnel to ${target}`
          : kind === 'proxy-no-answer'
            ? `the proxy ${proxy.shown} did not answer CONNECT ${target}`
            : `the proxy ${proxy.shown} answered ${kind === 'proxy-auth' ? 407 : status} to CONNECT ${target}`,
      { cause: options.cause },
    );
    this.status = status;
  }
  readonly status: number | undefined;
}

/** A failure of a request sent through a proxy, wrapped so that its line can name the proxy. @internal */
export class ProxiedFailure extends Error {
  override name = 'ProxiedFailure';
  constructor(
    readonly proxy: ProxyInUse,
    cause: unknown,
  ) {
    super('fetch failed', { cause });
  }
}

interface CodeKind {
  kind: Exclude<NetworkFailureKind, 'not-sent' | `proxy-${string}`>;
  /** Only a failure before any byte of the request was written. */
  neverSent: boolean;
}

const BY_CODE: Record<string, CodeKind> = {
  ECONNREFUSED: { kind: 'refused', neverSent: true },
  ENOTFOUND: { kind: 'dns', neverSent: true },
  EAI_AGAIN: { kind: 'dns', neverSent: true },
  EAI_NONAME: { kind: 'dns', neverSent: true },
  ENETUNREACH: { kind: 'unreachable', neverSent: true },
  // (On a connection already open, a host that became unreachable may have had the request.)
  EHOSTUNREACH: { kind: 'unreachable', neverSent: false },
  // undici's connect timeout fires before the request is written.
  UND_ERR_CONNECT_TIMEOUT: { kind: 'connect-timeout', neverSent: true },
  // The system's may come from an open connection whose peer went silent.
  ETIMEDOUT: { kind: 'connect-timeout', neverSent: false },
  ECONNRESET: { kind: 'reset', neverSent: false },
  EPIPE: { kind: 'reset', neverSent: false },
  ECONNABORTED: { kind: 'reset', neverSent: false },
  UND_ERR_SOCKET: { kind: 'reset', neverSent: false },
  // The TLS handshake comes before the request: a port that answers it in plain HTTP never
  // saw the request.
  ERR_SSL_WRONG_VERSION_NUMBER: { kind: 'plain-http', neverSent: true },
  EPROTO: { kind: 'tls', neverSent: false },
};

/** OpenSSL's words when the other side answered a TLS hello in plain text. */
const PLAIN_HTTP_SAYS = /wrong version number|packet length too long|http request/i;

/** How far down a cause chain to look (fetch → undici → socket, with a caller's wrappers on top). */
const MAX_DEPTH = 6;

/** An error and its causes, outermost first: the one walk of a cause chain. */
function causeChain(error: unknown): object[] {
  const chain: object[] = [];
  for (let e = error; chain.length < MAX_DEPTH && e !== null && typeof e === 'object'; ) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

/** The first `code` in an error's cause chain that `wanted` accepts (any, by default). */
export function causeCode(
  error: unknown,
  wanted: (code: string) => boolean = () => true,
): string | undefined {
  for (const e of causeChain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && wanted(code)) return code;
  }
  return undefined;
}

/** The proxy a failed request went through, from its cause chain, if it went through one. @internal */
export function proxyOf(error: unknown): ProxyInUse | undefined {
  for (const e of causeChain(error)) {
    if (e instanceof ProxiedFailure || e instanceof ProxyTunnelError) return e.proxy;
  }
  return undefined;
}

/** A 4xx of a proxy is its decision (403: not allowed); 408, 429 and 5xx may pass. */
function isFinalStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * The classification of a failed request's error, or undefined when it is not a network failure.
 * The stable function the transport, the CLI's lines and its retries read.
 */
export function classifyNetworkFailure(error: unknown): NetworkFailure | undefined {
  const failure = classifyChain(error);
  const proxy = failure && !failure.proxy ? proxyOf(error) : undefined;
  return failure && proxy ? { ...failure, proxy } : failure;
}

function classifyChain(error: unknown): NetworkFailure | undefined {
  for (const e of causeChain(error)) {
    if (e instanceof ProxyTunnelError) {
      const { kind, proxy, status, target } = e;
      const final = kind === 'proxy-auth' || (kind === 'proxy-status' && isFinalStatus(status));
      return { kind, code: causeCode(e.cause), neverSent: true, final, proxy, status, target };
    }
    if (e instanceof RequestNotSentError) {
      const below = classifyChain(e.cause);
      return below
        ? { ...below, neverSent: true }
        : { kind: 'not-sent', code: undefined, neverSent: true, final: false };
    }
    // undici's fetch says only this, as the message of the error under `fetch failed`.
    if ((e as { message?: unknown }).message === 'bad port') {
      return { kind: 'blocked-port', code: undefined, neverSent: true, final: true };
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && Object.hasOwn(BY_CODE, code)) {
      const known = BY_CODE[code] as CodeKind;
      const message = String((e as { message?: unknown }).message ?? '');
      const plain =
        known.kind === 'plain-http' || (known.kind === 'tls' && PLAIN_HTTP_SAYS.test(message));
      return plain
        ? { kind: 'plain-http', code, neverSent: true, final: true }
        : { kind: known.kind, code, neverSent: known.neverSent, final: known.kind === 'tls' };
    }
  }
  return undefined;
}
