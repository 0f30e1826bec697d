/**
 * The one classification of network failures (a request that got no answer), shared by the
 * client's transport and the CLI: what kind of failure it was, whether the request surely never
 * left this machine (then even a create POST may be sent again), and whether a retry can help.
 *
 * A failure is read from its cause chain: fetch wraps the system error (`ECONNREFUSED`,
 * `CERT_HAS_EXPIRED`, …) a few levels deep (`TypeError('fetch failed')` → undici's error → the
 * socket's), and a fetch of a caller's own may add its wrappers on top.
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
  | 'not-sent';

export interface NetworkFailure {
  kind: NetworkFailureKind;
  /** The system or library code the kind was read from, when there is one. */
  code: string | undefined;
  /** The request surely never reached the service: repeating it cannot do anything twice. */
  neverSent: boolean;
  /** A retry cannot help: the same request would fail the same way. */
  final: boolean;
}

/**
 * What a `fetch` given to the client rejects with when it knows that the request never left this
 * machine (a proxy that did not open its tunnel, a connection that was still being set up when
 * the request was stopped): the client may then send even a create POST again, and an upload cut
 * there is a failure, not an unknown outcome. Anything in its `cause` is kept for the message.
 */
export class RequestNotSentError extends Error {
  override name = 'RequestNotSentError';
}

interface CodeKind {
  kind: Exclude<NetworkFailureKind, 'not-sent'>;
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

/** The classification of a failed request's error, or undefined when it is not a network failure. */
export function classifyNetworkFailure(error: unknown): NetworkFailure | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    if (e instanceof RequestNotSentError) {
      const below = e.cause === undefined ? undefined : classifyNetworkFailure(e.cause);
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
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The first `code` in an error's cause chain that `wanted` accepts (the certificate codes,
 * certificate.ts).
 */
export function causeCode(error: unknown, wanted: (code: string) => boolean): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && wanted(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
