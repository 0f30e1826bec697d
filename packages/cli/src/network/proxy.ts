/**
 * Proxies from the environment (cli.md "Networks"): `HTTPS_PROXY` for https URLs and
 * `HTTP_PROXY` for http ones, each lower-case first (curl's meaning), and `NO_PROXY` (host
 * names, domain suffixes, with or without a port, `*`). NO_PROXY is matched here rather than
 * inside undici's EnvHttpProxyAgent, so that the CLI knows which requests went through a proxy
 * and can name it when one fails.
 * A value without a scheme (`proxy.corp:3128`, `user:secret@proxy.corp:3128`) means
 * `http://…`, as curl reads it. The proxy's credentials are sent to it and
 * never shown: everything that names a proxy goes through `showProxy`.
 */
import { usageError } from '../errors.js';

/** One proxy: its URL as it will be used, and the variable it came from (for messages). */
export interface ProxyVariable {
  url: string;
  variable: string;
}

export interface ProxySettings {
  httpProxy: ProxyVariable | undefined;
  httpsProxy: ProxyVariable | undefined;
  noProxy: string | undefined;
}

/** The first variable set to something other than blanks, lower-case first (curl). */
function first(env: NodeJS.ProcessEnv, ...names: string[]): ProxyVariable | undefined {
  for (const variable of names) {
    const value = env[variable]?.trim();
    if (value) return { url: withScheme(value), variable };
  }
  return undefined;
}

/**
 * `host:port` and `user:secret@host:port` mean `http://…` (curl's default scheme for a proxy).
 * Without this, `new URL('user:secret@host:3128')` reads `user:` as a scheme.
 */
export function withScheme(raw: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
}

/** The proxy variables in effect, or undefined when none is set. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const httpProxy = first(env, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = first(env, 'https_proxy', 'HTTPS_PROXY');
  if (!httpProxy && !httpsProxy) return undefined;
  const noProxy = env.no_proxy?.trim() || env.NO_PROXY?.trim() || undefined;
  checkProxyUrl(httpProxy);
  checkProxyUrl(httpsProxy);
  return { httpProxy, httpsProxy, noProxy };
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

/**
 * Checks a proxy URL up front, so a typo is a usage error naming the variable. The value itself
 * is never quoted: it may hold a password.
 */
function checkProxyUrl(proxy: ProxyVariable | undefined): void {
  if (proxy === undefined) return;
  let url: URL;
  try {
    url = new URL(proxy.url);
  } catch {
    throw usageError(
      `${proxy.variable} is not a URL such as http://proxy.example:3128 (a variable of the environment)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(
      `${proxy.variable} must be an http:// or https:// proxy URL, got ${url.protocol} (a variable of the environment)`,
    );
  }
}

/** The one --verbose line that says which proxies are used, without their credentials. */
export function describeProxies(settings: ProxySettings): string {
  const via = [
    settings.httpsProxy ? `https via ${showProxy(settings.httpsProxy.url)}` : '',
    settings.httpProxy ? `http via ${showProxy(settings.httpProxy.url)}` : '',
  ].filter(Boolean);
  return `proxy: ${via.join(', ')}; not for loopback${settings.noProxy ? ` or NO_PROXY ${settings.noProxy}` : ''}`;
}

/**
 * Whether NO_PROXY sends `hostname:port` direct, as curl reads it: entries separated by commas
 * or blanks; `*` alone matches every host; `corp.example` and `.corp.example` match that host
 * and every name under it; an entry with `:port` matches that port only.
 */
export function noProxyMatches(
  noProxy: string | undefined,
  hostname: string,
  port: number,
): boolean {
  if (!noProxy) return false;
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    // `name`, `name:port`, `[v6]`, `[v6]:port`; a bare IPv6 address is a name as it stands.
    const parts = /^(\[[^\]]*\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (parts?.[2] !== undefined && Number(parts[2]) !== port) continue;
    const name = (parts?.[1] ?? entry)
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/^\*?\./, '')
      .replace(/\.$/, '');
    if (name !== '' && (host === name || host.endsWith(`.${name}`))) return true;
  }
  return false;
}
