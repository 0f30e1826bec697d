import { describe, expect, it } from 'vitest';
import { noProxyMatches, proxySettings, withScheme } from '../../../src/network/proxy.js';

describe('NO_PROXY as curl reads it', () => {
  it.each([
    ['*', 'api.example.com', 443, true],
    ['example.com', 'example.com', 443, true],
    ['example.com', 'api.example.com', 443, true],
    ['.example.com', 'api.example.com', 443, true],
    ['*.example.com', 'api.example.com', 443, true],
    ['example.com', 'notexample.com', 443, false],
    ['example.com:8443', 'api.example.com', 443, false],
    ['example.com:443', 'api.example.com', 443, true],
    ['other.invalid, example.com', 'api.example.com', 443, true],
    ['other.invalid example.com', 'EXAMPLE.com', 80, true],
    ['[::1]:443', '[::1]', 443, true],
    ['10.0.0.1', '10.0.0.1', 80, true],
    ['', 'api.example.com', 443, false],
  ] as const)('NO_PROXY=%j, %s:%d goes direct: %s', (noProxy, host, port, direct) => {
    expect(noProxyMatches(noProxy, host, port)).toBe(direct);
  });
});

describe('proxy variables', () => {
  it('a value without a scheme means http:// (curl), credentials included', () => {
    expect(withScheme('proxy.corp:3128')).toBe('http://proxy.corp:3128');
    expect(withScheme('u:p@proxy.corp:3128')).toBe('http://u:p@proxy.corp:3128');
    expect(withScheme('https://proxy.corp')).toBe('https://proxy.corp');
  });

  it('the lower-case variable wins; https never falls back to HTTP_PROXY', () => {
    const s = proxySettings({ HTTPS_PROXY: 'a:1', https_proxy: 'b:2', HTTP_PROXY: 'c:3' });
    expect(s?.httpsProxy).toEqual({ url: 'http://b:2', variable: 'https_proxy' });
    expect(s?.httpProxy).toEqual({ url: 'http://c:3', variable: 'HTTP_PROXY' });
    expect(proxySettings({ HTTP_PROXY: 'c:3' })?.httpsProxy).toBeUndefined();
  });

  it('a value that is no URL is a usage error naming the variable, never quoting the value', () => {
    expect(() => proxySettings({ HTTPS_PROXY: 'user:s3cret@bad host' })).toThrow(
      /^HTTPS_PROXY is not a URL such as http:\/\/proxy\.example:3128/,
    );
    try {
      proxySettings({ HTTPS_PROXY: 'user:s3cret@bad host' });
    } catch (error) {
      expect(String(error)).not.toContain('s3cret');
    }
    expect(() => proxySettings({ HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(
      /HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL, got socks5:/,
    );
  });
});
