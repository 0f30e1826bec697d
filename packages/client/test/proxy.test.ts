import { createRcsClient } from '@rcs/client';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { EnvHttpProxyAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectProxy, startConnectProxy } from '../../../test/support/connect-proxy.js';

// The README's proxy example, run: an integrator routes @rcs/client through a
// proxy with undici's EnvHttpProxyAgent as the `fetch`'s dispatcher. The base URL's host resolves
// nowhere, so only a request that went through the proxy can be answered.

let mock: MockServer;
let proxy: ConnectProxy;

beforeAll(async () => {
  mock = await startMockServer({ port: 0, processingMs: 0 });
  proxy = await startConnectProxy(Number(new URL(mock.url).port));
});
afterAll(async () => {
  proxy?.close();
  await mock?.close();
});

describe('@rcs/client behind a proxy', () => {
  it('sends every request through the dispatcher given in `fetch`, credentials to the proxy', async () => {
    const dispatcher = new EnvHttpProxyAgent({
      httpProxy: proxy.url.replace('http://', 'http://me:pw@'),
      noProxy: '',
    });
    const rcs = createRcsClient({
      baseUrl: 'http://api.rcs.invalid',
      apiKey: mock.info.apiKey,
      // Plain http to a remote host needs this; against a real service, use https.
      allowInsecureHttp: true,
      fetch: (request) => fetch(request, { dispatcher } as RequestInit),
    });
    const teams = await rcs.exports.teams.all().toArray();
    expect(teams.length).toBeGreaterThan(0);
    expect(proxy.connects.map((c) => c.target)).toContain('api.rcs.invalid:80');
    expect(proxy.connects[0]?.headers['proxy-authorization']).toBe(
      `Basic ${Buffer.from('me:pw').toString('base64')}`,
    );
    await dispatcher.close();
  });
});
