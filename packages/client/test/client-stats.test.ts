import { createRcsClient, RateLimitError } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { API_KEY, BASE, SESSION_ID, sessionFixture } from './helpers.js';

// `client.stats` (issue 29): what a client's requests came to, the figures of `rcs`'s run summary
// (requests, retries, 429s, time waited for rate limits, bytes read).

const session = () => JSON.stringify(sessionFixture('DONE'));

/** A fetch that gives the answers in turn (the last one again when they run out). */
function answering(...answers: (() => Response)[]) {
  let n = 0;
  return (async () => answers[Math.min(n++, answers.length - 1)]!()) as typeof globalThis.fetch;
}

const json = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

describe('client.stats', () => {
  it('starts at zero', () => {
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    expect(client.stats).toEqual({
      requests: 0,
      retries: 0,
      rateLimited: 0,
      rateLimitWaitMs: 0,
      bytesReceived: 0,
      bytesSent: 0,
    });
  });

  it("counts a 429, the retry after it, the wait the service asked for, and the answer's bytes", async () => {
    const body = session();
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      adaptiveRate: false,
      fetch: answering(
        () => json('{"title":"slow down","status":429}', 429, { 'retry-after': '1' }),
        () => json(body),
      ),
    });
    await expect(client.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    expect(client.stats).toEqual({
      requests: 2,
      retries: 1,
      rateLimited: 1,
      rateLimitWaitMs: 1_000,
      bytesReceived:
        Buffer.byteLength('{"title":"slow down","status":429}') + Buffer.byteLength(body),
      bytesSent: 0,
    });
  });

  it('a wait after an answer that is not a 429 is a retry, not a rate-limit wait', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      adaptiveRate: false,
      fetch: answering(
        () => json('{"title":"down","status":503}', 503, { 'retry-after': '1' }),
        () => json(session()),
      ),
    });
    await client.sessions.get(SESSION_ID);
    expect(client.stats).toMatchObject({
      requests: 2,
      retries: 1,
      rateLimited: 0,
      rateLimitWaitMs: 0,
    });
  });

  it('an answer without a body (204) reads no bytes', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: answering(() => new Response(null, { status: 204 })),
    });
    await client.GET('/api/v1/real-call-sessions/{sessionId}', {
      params: { path: { sessionId: SESSION_ID } },
    });
    expect(client.stats).toMatchObject({ requests: 1, bytesReceived: 0 });
  });

  it('a Retry-After longer than the client waits (maxRetryAfterMs) is not waited for: the 429 is the answer, at once', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      adaptiveRate: false,
      maxRetryAfterMs: 1_000,
      fetch: answering(() =>
        json('{"title":"slow down","status":429}', 429, { 'retry-after': '3600' }),
      ),
    });
    const error = await client.sessions.get(SESSION_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect(client.stats).toMatchObject({
      requests: 1,
      retries: 0,
      rateLimited: 1,
      rateLimitWaitMs: 0,
    });
  });
});
