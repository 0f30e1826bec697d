/**
 * Proxies from the environment (issue 15, cli.md "Networks"): `HTTPS_PROXY` for https URLs and
 * `HTTP_PROXY` for http ones, each lower-case first (curl's meaning), and `NO_PROXY` (host
 * names, domain suffixes, with or without a port, `*`) matched by undici's EnvHttpProxyAgent.
 * Loopback (`localhost`, 127.0.0.0/8, ::1) never goes through a proxy, as Go's net/http decides,
 * so `rcs mock` and `rcs demo` keep working on a proxied machine. undici is imported only when a
 * proxy variable is set: start-up without one pays nothing.
 */
import { isLoopbackHost } from '@rcs/client';

export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

const first = (...values: (string | undefined)[]) =>
  values.find((v) => v !== undefined && v.trim() !== '')?.trim();

/** The proxy variables in effect, or undefined when none is set. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = first(env.http_proxy, env.HTTP_PROXY);
  const httpsProxy = first(env.https_proxy, env.HTTPS_PROXY);
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy: first(env.no_proxy, env.NO_PROXY) };
}

/** A proxy URL as it may be shown: scheme, host and port, never its credentials. */
export function showProxy(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(an unreadable proxy URL)';
  }
}

/** Checks the proxy URLs up front, so a typo is a usage error naming the variable (no secret). */
function checkProxyUrl(name: string, raw: string | undefined): void {
  if (raw === undefined) return;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} is not a URL such as http://proxy.example:3128`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an http:// or https:// proxy URL, got ${url.protocol}`);
  }
}

/**
 * A `fetch` that sends each request through the proxy its URL's scheme calls for, or directly
 * (loopback, NO_PROXY, no proxy for that scheme).
 */
export async function proxiedFetch(settings: ProxySettings): Promise<typeof fetch> {
  checkProxyUrl('HTTP_PROXY', settings.httpProxy);
  checkProxyUrl('HTTPS_PROXY', settings.httpsProxy);
  // Bundled, undici (CommonJS) may come as a default export only.
  const undici = (await import('undici')) as typeof import('undici') & {
    default?: typeof import('undici');
  };
  const { EnvHttpProxyAgent } = undici.EnvHttpProxyAgent ? undici : (undici.default ?? undici);
  const agent = new EnvHttpProxyAgent({
    ...(settings.httpProxy ? { httpProxy: settings.httpProxy } : {}),
    ...(settings.httpsProxy ? { httpsProxy: settings.httpsProxy } : {}),
    noProxy: settings.noProxy ?? '',
  });
  return ((input: Request | string | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const proxy = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
    // No proxy for this scheme (curl does not send https through HTTP_PROXY), or loopback.
    if (!proxy || isLoopbackHost(url.hostname)) return globalThis.fetch(input, init);
    // Node's fetch takes an undici dispatcher; the pinned undici is the version Node bundles.
    return globalThis.fetch(input, { ...init, dispatcher: agent } as RequestInit);
  }) as typeof fetch;
}
