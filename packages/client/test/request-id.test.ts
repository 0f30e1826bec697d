import { type ApiError, createRcsClient, NotFoundError, WaitTimeoutError } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { API_KEY, BASE, problem, SESSION_ID } from './helpers.js';

/** A service that answers every request with `status` and names the answer in `header`. */
function answering(status: number, header: string, id: string): typeof fetch {
  return async () =>
    new Response(JSON.stringify(problem(status, 'not_found', 'Not found', 'no such session')), {
      status,
      headers: { 'content-type': 'application/problem+json', [header]: id },
    });
}

describe('request ids', () => {
  it('every typed error carries the x-request-id of the answer, also in its message', async () => {
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: answering(404, 'x-request-id', 'req-404-a'),
    });
    const error = await rcs.sessions.get(SESSION_ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as ApiError).requestId).toBe('req-404-a');
    expect((error as ApiError).message).toMatch(/\(request id req-404-a\)$/);
    expect((error as ApiError).toJSON()).toMatchObject({ requestId: 'req-404-a' });
  });

  it('reads the header the client is told to read', async () => {
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      requestIdHeader: 'X-Correlation-Id',
      fetch: answering(404, 'x-correlation-id', 'corr-7'),
    });
    const error = (await rcs.exports.users.list().catch((e: unknown) => e)) as ApiError;
    expect(error.requestId).toBe('corr-7');
  });

  it('refuses a header name that is not one, naming the option', () => {
    expect(() =>
      createRcsClient({ baseUrl: BASE, apiKey: API_KEY, requestIdHeader: 'x request id' }),
    ).toThrow(/requestIdHeader must be a header name/);
  });

  it('logs the request id on each request line', async () => {
    const lines: string[] = [];
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      maxRetries: 0,
      fetch: answering(404, 'x-request-id', 'req-logged'),
      logger: { debug: (m) => lines.push(m) },
    });
    await rcs.sessions.get(SESSION_ID).catch(() => {});
    expect(lines).toEqual([expect.stringMatching(/-> 404 \(request id req-logged\)$/)]);
  });

  it('a wait that ends while the service fails names the last failed read', async () => {
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      maxRetries: 0,
      fetch: async () =>
        new Response('{}', { status: 503, headers: { 'x-request-id': 'req-503-last' } }),
    });
    const error = await rcs.sessions
      .waitUntilDone(SESSION_ID, { timeoutMs: 30, initialIntervalMs: 5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).requestId).toBe('req-503-last');
  });
});
