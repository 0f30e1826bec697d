import { type AnswerRecord, startMockServer } from '@rcs/mock/node';
import { afterEach, describe, expect, it } from 'vitest';

describe('the server names every answer and reports what it received', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('every answer, a success or a problem, carries its own x-request-id, seen by onAnswer with the trace context', async () => {
    const answers: AnswerRecord[] = [];
    const server = await startMockServer({
      port: 0,
      onAnswer: (a) => answers.push(a),
    });
    close = server.close;
    const key = server.info.apiKey as string;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const headers = { 'x-api-key': key, traceparent, tracestate: 'vendor=1' };
    const ok = await fetch(`${server.url}/api/v1/data-exports/users?limit=1`, { headers });
    const limited = await fetch(`${server.url}/api/v1/data-exports/users?limit=1`, {
      headers: { ...headers, 'x-api-key': 'not-a-key' },
    });
    const unknown = await fetch(`${server.url}/nowhere`);
    expect([ok.status, limited.status, unknown.status]).toEqual([200, 401, 404]);
    const ids = [ok, limited, unknown].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(3);
    await expect.poll(() => answers.length).toBe(3);
    expect(answers[0]).toEqual({
      method: 'GET',
      target: '/api/v1/data-exports/users?limit=1',
      status: 200,
      requestId: ids[0],
      traceparent,
      tracestate: 'vendor=1',
    });
    expect(answers[1]).toMatchObject({ status: 401, requestId: ids[1], traceparent });
    expect(answers[2]).toMatchObject({ status: 404, traceparent: undefined });
    // What a log line may show: never the credential the request carried.
    expect(JSON.stringify(answers)).not.toContain(key);
  });
});
