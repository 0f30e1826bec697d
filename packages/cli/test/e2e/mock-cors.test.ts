import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, startMock, tempDir } from './helpers.js';

// `rcs mock` beside a front-end (D26, cli.md): CORS on by default, --no-cors, --cors-origin, and
// a client that hangs up mid-request is one line with --verbose, nothing without.
beforeAll(assertBuilt);
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

async function mock(args: string[]) {
  const m = await startMock(args);
  children.push(m.child);
  return { ...m, key: m.apiKey };
}

const preflight = (url: string, origin: string) =>
  fetch(`${url}/api/v1/data-exports/teams`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-api-key',
    },
  });

describe('rcs mock CORS', () => {
  it('answers a preflight from any origin by default', async () => {
    const { url, key } = await mock([]);
    const res = await preflight(url, 'http://localhost:5173');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/i);
    const data = await fetch(`${url}/api/v1/data-exports/teams`, {
      headers: { origin: 'http://localhost:5173', 'x-api-key': key },
    });
    expect(data.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('--cors-origin limits it to the listed origins (repeatable)', async () => {
    const { url } = await mock([
      '--cors-origin',
      'http://localhost:5173',
      '--cors-origin',
      'https://app.example.com',
    ]);
    expect((await preflight(url, 'https://app.example.com')).status).toBe(204);
    expect((await preflight(url, 'http://localhost:5173')).status).toBe(204);
    const other = await preflight(url, 'http://evil.test');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('--no-cors answers no CORS headers', async () => {
    const { url, key } = await mock(['--no-cors']);
    expect((await preflight(url, 'http://localhost:5173')).status).toBe(405);
    const data = await fetch(`${url}/api/v1/data-exports/teams`, {
      headers: { origin: 'http://localhost:5173', 'x-api-key': key },
    });
    expect(data.status).toBe(200);
    expect(data.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a --cors-origin that is not an origin is a usage error naming it', async () => {
    const dir = tempDir();
    for (const bad of ['localhost:5173', 'http://localhost:5173/app', 'ftp://x.test']) {
      const r = await runCli(['mock', '--port', '0', '--cors-origin', bad], { cwd: dir });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--cors-origin must be an origin`);
      expect(r.stderr, bad).toContain(bad);
    }
    const both = await runCli(['mock', '--no-cors', '--cors-origin', 'http://a.test'], {
      cwd: dir,
    });
    expect(both.code).toBe(2);
  });
});

describe('rcs mock and departing clients', () => {
  async function hangUp(url: string) {
    const { port } = new URL(url);
    await new Promise<void>((resolve) => {
      const s = connect(Number(port), '127.0.0.1', () => {
        s.write(
          'POST /api/v1/real-call-sessions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"t',
        );
        // Part of a body, then gone: the server is told once the bytes are on its side.
        s.end(() => {
          s.destroy();
          resolve();
        });
      });
    });
  }

  it('prints nothing without --verbose and one line with it, never a stack trace', async () => {
    const quiet = await mock([]);
    await hangUp(quiet.url);
    await quiet.stop();
    expect(quiet.stderr()).not.toMatch(/hung up|Error|at /);

    const loud = await mock(['--verbose']);
    await hangUp(loud.url);
    await hangUp(loud.url);
    expect(await loud.stderrLines(/hung up/, 2)).toHaveLength(2);
    await loud.stop();
    expect(
      loud
        .stderr()
        .split('\n')
        .filter((l) => /hung up/.test(l)),
    ).toHaveLength(2);
    expect(loud.stderr()).not.toMatch(/\n\s+at /);
  });
});
