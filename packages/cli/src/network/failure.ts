/**
 * The CLI's lines for network failures, direct or through a proxy (cli.md "Networks"). What kind
 * a failure is, whether it never left this machine, whether a retry can help and the proxy it
 * went through all come from the client's one classifier (`classifyNetworkFailure`), which the
 * client's transport reads too; this module only words them.
 */
import type { NetworkFailure, NetworkFailureKind } from '@rcs/client';

/** What happened, for a direct failure of this kind. */
const DIRECT: Record<Exclude<NetworkFailureKind, `proxy-${string}`>, string> = {
  refused: 'connection refused',
  dns: 'the host name resolves nowhere',
  unreachable: 'no route to the host',
  'connect-timeout': 'the connection was not set up in time',
  reset: 'the connection was closed before the answer ended',
  'plain-http': 'this server speaks plain http',
  tls: 'the TLS handshake failed',
  'blocked-port': 'fetch refuses this port',
  'not-sent': 'the request was not sent',
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
      return `cannot send to ${originOf(where)}: fetch refuses ${blockedPort(where)}, one of the ports the Fetch standard blocks because other protocols use them; run the service on another port and set --base-url / RCS_BASE_URL to it`;
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

function originOf(where: string | undefined): string {
  if (!where) return 'the service';
  return URL.canParse(where) ? new URL(where).origin : where;
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
