import {
  ConnectionError,
  classifyNetworkFailure as classifyFailure,
  type ProxyInUse,
  TimeoutError,
} from '@rcs/client';
import { ProxiedFailure, ProxyTunnelError } from '@rcs/client/internal';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../../src/describe-error.js';
import { describeFailure } from '../../../src/network/failure.js';

// One classification for every request, read from the cause chain as fetch wraps it:
// TypeError('fetch failed') → undici's error → the socket's. Each kind gives one line.

const system = (code: string, message = `${code} from the socket`) =>
  Object.assign(new Error(message), { code });
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
const proxy: ProxyInUse = {
  shown: 'http://proxy.corp:3128',
  variable: 'HTTPS_PROXY',
  hasCredentials: false,
};
const URL_ = 'https://api.example.com/api/v1/data-exports/teams?page=1&limit=100';

describe('classifyFailure', () => {
  it.each([
    ['ECONNREFUSED', 'refused', false],
    ['ENOTFOUND', 'dns', false],
    ['EAI_AGAIN', 'dns', false],
    ['EHOSTUNREACH', 'unreachable', false],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect-timeout', false],
    ['ECONNRESET', 'reset', false],
    ['UND_ERR_SOCKET', 'reset', false],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'plain-http', true],
    ['EPROTO', 'tls', true],
  ] as const)('%s is %s (final: %s), however deep fetch wrapped it', (code, kind, final) => {
    for (const error of [
      system(code),
      fetchFailed(system(code)),
      fetchFailed(fetchFailed(system(code))),
    ]) {
      expect(classifyFailure(error)).toMatchObject({ kind, code, final });
    }
  });

  it("OpenSSL's EPROTO with 'wrong version number' is plain http", () => {
    const error = fetchFailed(system('EPROTO', 'tlsany_meth.c:77: wrong version number'));
    expect(classifyFailure(error)?.kind).toBe('plain-http');
  });

  it('what is not a network failure is not classified', () => {
    expect(classifyFailure(new Error('boom'))).toBeUndefined();
    expect(classifyFailure('text')).toBeUndefined();
    expect(classifyFailure(null)).toBeUndefined();
  });

  it('a failure of a proxied request carries the proxy it went through', () => {
    const failure = classifyFailure(new ProxiedFailure(proxy, fetchFailed(system('ECONNRESET'))));
    expect(failure).toMatchObject({ kind: 'reset', proxy });
  });

  it.each([
    ['proxy-auth', 407, true],
    ['proxy-status', 403, true],
    ['proxy-status', 502, false],
    ['proxy-status', 429, false],
    ['proxy-dropped', undefined, false],
    ['proxy-refused', undefined, false],
    ['proxy-no-answer', undefined, false],
  ] as const)('a tunnel failure %s (%s) is final: %s', (kind, status, final) => {
    const tunnel = new ProxyTunnelError(kind, proxy, 'api.example.com:443', { status });
    expect(classifyFailure(fetchFailed(tunnel))).toMatchObject({ kind, final, proxy, status });
  });
});

describe('the line of each failure', () => {
  const line = (error: unknown) => describeError(error).message;

  it('https:// to a plain-http port: the plain-http hint with the http:// URL to use', () => {
    const error = new ConnectionError('x', {
      url: 'https://127.0.0.1:4010/api/v1/data-exports/teams',
      cause: fetchFailed(system('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number')),
    });
    expect(line(error)).toBe(
      'this server speaks plain http; use http://127.0.0.1:4010 in --base-url / RCS_BASE_URL (https://127.0.0.1:4010 answered without TLS)',
    );
  });

  it('a 407 says the proxy asked for credentials, and where they go', () => {
    const tunnel = new ProxyTunnelError('proxy-auth', proxy, 'api.example.com:443', {
      status: 407,
    });
    const failure = classifyFailure(tunnel);
    if (!failure) throw new Error('a 407 tunnel failure is classified');
    expect(describeFailure(failure, URL_)).toBe(
      "the proxy asked for credentials (407): add them to HTTPS_PROXY as user:password@ before the proxy's host (http://proxy.corp:3128)",
    );
    const refused = new ProxyTunnelError(
      'proxy-auth',
      { ...proxy, hasCredentials: true, variable: 'https_proxy' },
      'api.example.com:443',
      { status: 407 },
    );
    expect(line(new ConnectionError('x', { url: URL_, cause: refused }))).toBe(
      'the proxy asked for credentials (407) and refused those in https_proxy (http://proxy.corp:3128); check the user name and password',
    );
  });

  it('a refused proxy names the proxy and its variable, not --base-url', () => {
    const tunnel = new ProxyTunnelError('proxy-refused', proxy, 'api.example.com:443', {
      cause: system('ECONNREFUSED'),
    });
    const message = line(new ConnectionError('x', { url: URL_, cause: fetchFailed(tunnel) }));
    expect(message).toBe(
      'could not connect to the proxy http://proxy.corp:3128 (HTTPS_PROXY): connection refused (ECONNREFUSED); check that the proxy runs and that HTTPS_PROXY is its address',
    );
  });

  it('a proxy that closes the CONNECT, and one that never answers', () => {
    const dropped = new ProxyTunnelError('proxy-dropped', proxy, 'api.example.com:443');
    expect(line(new ConnectionError('x', { url: URL_, cause: fetchFailed(dropped) }))).toBe(
      "the proxy http://proxy.corp:3128 (HTTPS_PROXY) closed the connection instead of opening a tunnel to api.example.com:443; check HTTPS_PROXY and NO_PROXY, or ask the proxy's administrator",
    );
    const silent = new ProxyTunnelError('proxy-no-answer', proxy, 'api.example.com:443');
    expect(line(new ConnectionError('x', { url: URL_, cause: fetchFailed(silent) }))).toBe(
      'the proxy http://proxy.corp:3128 (HTTPS_PROXY) did not answer CONNECT api.example.com:443; check HTTPS_PROXY, or whether this network needs a proxy at all',
    );
  });

  it('the deadline: one line with the seconds, the URL and the proxy when there was one', () => {
    const direct = new TimeoutError(60_000, { method: 'GET', url: URL_ });
    expect(line(direct)).toBe(
      `no answer within 60 s from ${URL_}; check your network, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`,
    );
    const proxied = new TimeoutError(2_500, {
      method: 'GET',
      url: URL_,
      cause: new ProxiedFailure(proxy, new DOMException('aborted', 'AbortError')),
    });
    expect(line(proxied)).toBe(
      `no answer within 2.5 s from ${URL_} through the proxy http://proxy.corp:3128 (HTTPS_PROXY); check your network and the proxy, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`,
    );
  });

  it('a refused or unknown host keeps the base-url hint, with the code', () => {
    const refused = new ConnectionError('x', {
      url: URL_,
      cause: fetchFailed(system('ECONNREFUSED')),
    });
    expect(line(refused)).toBe(
      `could not reach the service: connection refused (ECONNREFUSED) at ${URL_}; check --base-url / RCS_BASE_URL and your network`,
    );
  });

  it('a proxy is shown without its credentials, whatever the kind', () => {
    const secretProxy: ProxyInUse = { ...proxy, hasCredentials: true };
    for (const kind of [
      'proxy-auth',
      'proxy-dropped',
      'proxy-refused',
      'proxy-no-answer',
    ] as const) {
      const tunnel = new ProxyTunnelError(kind, secretProxy, 'api.example.com:443', {
        status: 407,
      });
      const message = line(new ConnectionError(tunnel.message, { url: URL_, cause: tunnel }));
      expect(message).toContain('http://proxy.corp:3128');
      expect(message).not.toContain('@proxy');
    }
  });
});
