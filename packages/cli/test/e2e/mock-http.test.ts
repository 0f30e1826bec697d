import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, type MockProcess, startMock } from './helpers.js';

// `rcs mock` speaks HTTP/1.1 as a client expects (scenario 9): requests pipelined on
// one connection are answered in order, each one, and a request with two Host fields is a 400
// (RFC 9112 §3.2). Raw sockets against a real `rcs mock` process: no HTTP client in between.

let mock: MockProcess;
beforeAll(async () => {
  assertBuilt();
  mock = await startMock();
});
afterAll(() => mock?.stop());

/**
 * Writes `requests` in one TCP write and reads until the server closes (the last request says
 * `Connection: close`, so it closes right after answering it). Returns the answers' status
 * lines and bodies, in the order they came.
 */
function exchange(
  requests: string[],
  opts: { to?: MockProcess; halfClose?: boolean } = {},
): Promise<{ status: number; body: string }[]> {
  const { port } = new URL((opts.to ?? mock).url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(Buffer.concat(chunks).toString('latin1'))));
    // halfClose: the client shuts down its sending side after the requests (FIN), as curl may.
    if (opts.halfClose) socket.end(requests.join(''));
    else socket.write(requests.join(''));
  });
}

/** HTTP/1.1 answers with content-length bodies, one after another. */
function parseAnswers(raw: string): { status: number; body: string }[] {
  const out: { status: number; body: string }[] = [];
  let rest = raw;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`a partial answer: ${JSON.stringify(rest.slice(0, 200))}`);
    const head = rest.slice(0, end);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ status, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const get = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${mock.apiKey}\r\n${extra}\r\n`;
const last = (path: string) => get(path, 'Connection: close\r\n');
const pageSize = (answer: { body: string }) =>
  (JSON.parse(answer.body) as { data: unknown[] }).data.length;

describe('rcs mock: HTTP/1.1 on one connection', () => {
  it('answers two requests written in one TCP write, each, in order', async () => {
    const answers = await exchange([
      get('/api/v1/data-exports/teams?limit=1'),
      last('/api/v1/data-exports/teams?limit=3'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map(pageSize)).toEqual([1, 3]);
  });

  it('a refusal keeps the connection: the request behind it is answered too', async () => {
    const post = (body: string) =>
      `POST /api/v1/real-call-sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${mock.apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const answers = await exchange([
      get('/api/v1/data-exports/teams?limit=0'), // 400: limit out of range (D7)
      `TRACE /api/v1/data-exports/teams HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, // 405
      post('{"transcript":'), // 400: malformed JSON
      last('/api/v1/data-exports/teams?limit=2'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 405, 400, 200]);
    expect(pageSize(answers[3]!)).toBe(2);
  });

  it('two Host header fields: 400 with a problem naming them (RFC 9112 §3.2)', async () => {
    const answers = await exchange([
      `GET /api/v1/data-exports/teams HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: other.example\r\n` +
        `X-API-KEY: ${mock.apiKey}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.status).toBe(400);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ code: 'bad_request', status: 400 });
    expect(answers[0]?.body).toMatch(/2 Host header fields/);
  });

  it('one Host header is answered as before', async () => {
    const answers = await exchange([last('/api/v1/data-exports/teams?limit=1')]);
    expect(answers.map((a) => a.status)).toEqual([200]);
  });
});

describe('rcs mock: a client that half-closes after pipelining', () => {
  let slow: MockProcess;
  beforeAll(async () => {
    slow = await startMock(['--latency-ms', '50']);
  });
  afterAll(() => slow?.stop());

  it.each([
    ['no latency', () => mock],
    ['--latency-ms 50', () => slow],
  ])('%s: both answers arrive, in order, then the mock closes', async (_, to) => {
    // No `Connection: close`: the half-close alone says no more requests are coming.
    const answers = await exchange(
      [get('/api/v1/data-exports/teams?limit=1'), get('/api/v1/data-exports/teams?limit=3')],
      { to: to(), halfClose: true },
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map(pageSize)).toEqual([1, 3]);
  });
});
