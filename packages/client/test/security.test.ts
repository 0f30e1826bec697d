import { createRcsClient, type RcsClientOptions, RcsError } from '@rcs/client';
import { isLoopbackHost } from '@rcs/client/internal';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, SESSION_ID, sessionFixture } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('credentials never go out over plain http to another machine', () => {
  it('refuses at creation, naming the host and the way out', () => {
    expect(() => createRcsClient({ baseUrl: 'http://api.example.com', apiKey: API_KEY })).toThrow(
      /plain http to api\.example\.com.*allowInsecureHttp/,
    );
    expect(() => createRcsClient({ baseUrl: 'http://10.0.0.5:8080', token: 'jwt.x.y' })).toThrow(
      RcsError,
    );
  });

  it.each([
    'http://localhost:4010',
    'http://127.0.0.1:4010',
    'http://[::1]:4010',
    'http://app.localhost',
  ])('allows loopback %s', (baseUrl) => {
    expect(() => createRcsClient({ baseUrl, apiKey: API_KEY })).not.toThrow();
  });

  it('allows http with no credentials, and with an explicit opt-in', async () => {
    expect(() => createRcsClient({ baseUrl: 'http://api.example.com' })).not.toThrow();
    server.use(
      http.get('http://api.example.com/api/v1/real-call-sessions/:id', ({ request }) =>
        HttpResponse.json(
          { ...sessionFixture('DONE'), id: request.headers.get('x-api-key') ?? '' },
          { status: 201 },
        ),
      ),
    );
    const c = createRcsClient({
      baseUrl: 'http://api.example.com',
      apiKey: API_KEY,
      allowInsecureHttp: true,
    });
    await expect(c.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: API_KEY });
  });

  it('also per request: the raw GET cannot be pointed at a plain-http host', async () => {
    let calls = 0;
    server.use(
      http.get('http://evil.example/api/v1/real-call-sessions/:id', () => {
        calls++;
        return HttpResponse.json(sessionFixture('DONE'));
      }),
    );
    const c = createRcsClient({ baseUrl: 'https://rcs.test', apiKey: API_KEY });
    await expect(
      c.GET('/api/v1/real-call-sessions/{sessionId}', {
        params: { path: { sessionId: SESSION_ID } },
        baseUrl: 'http://evil.example',
      }),
    ).rejects.toThrow(/plain http/);
    expect(calls).toBe(0);
  });

  it('isLoopbackHost', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('127.8.9.10')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.example.com')).toBe(false);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
  });
});

describe('options are checked at creation', () => {
  it.each([
    [{ baseUrl: '' }, /baseUrl is required/],
    [{ baseUrl: 'api.example.com' }, /not an absolute URL/],
    [{ baseUrl: 'ftp://api.example.com' }, /http or https/],
    [
      { baseUrl: 'https://a.io', maxRetries: -1 },
      /maxRetries must be a whole number of at least 0/,
    ],
    [{ baseUrl: 'https://a.io', timeoutMs: 0 }, /timeoutMs must be a positive/],
    [
      { baseUrl: 'https://a.io', apikey: 'k' },
      /unknown option "apikey"; expected one of baseUrl, apiKey/,
    ],
  ])('%o', (options, message) => {
    expect(() => createRcsClient(options as RcsClientOptions)).toThrow(message);
  });

  it('a base URL that already ends in /api/v1 is not doubled', () => {
    expect(createRcsClient({ baseUrl: 'https://a.io/api/v1/' }).baseUrl).toBe('https://a.io');
  });
});

describe('redirects never carry credentials to another origin', () => {
  it('refuses a redirect to another host, naming it, and sends nothing there', async () => {
    let reached = 0;
    server.use(
      http.get('https://rcs.test/api/v1/real-call-sessions/:id', () =>
        HttpResponse.redirect('https://elsewhere.example/steal', 302),
      ),
      http.get('https://elsewhere.example/steal', () => {
        reached++;
        return HttpResponse.json({});
      }),
    );
    const c = createRcsClient({ baseUrl: 'https://rcs.test', apiKey: API_KEY });
    await expect(c.sessions.get(SESSION_ID)).rejects.toThrow(
      /redirected to https:\/\/elsewhere\.example; credentials are not sent/,
    );
    expect(reached).toBe(0);
  });

  it('refuses a downgrade to http on the same host', async () => {
    server.use(
      http.get('https://rcs.test/api/v1/real-call-sessions/:id', () =>
        HttpResponse.redirect('http://rcs.test/api/v1/real-call-sessions/x', 301),
      ),
    );
    const c = createRcsClient({ baseUrl: 'https://rcs.test', apiKey: API_KEY });
    await expect(c.sessions.get(SESSION_ID)).rejects.toThrow(/redirected to http:\/\/rcs\.test/);
  });

  it('follows a same-origin redirect with the credentials', async () => {
    let key: string | null = null;
    server.use(
      http.get('https://rcs.test/api/v1/real-call-sessions/:id', () =>
        HttpResponse.redirect('https://rcs.test/v2/session', 307),
      ),
      http.get('https://rcs.test/v2/session', ({ request }) => {
        key = request.headers.get('x-api-key');
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const c = createRcsClient({ baseUrl: 'https://rcs.test', apiKey: API_KEY });
    await expect(c.sessions.get(SESSION_ID)).resolves.toMatchObject({ state: 'DONE' });
    expect(key).toBe(API_KEY);
  });
});
