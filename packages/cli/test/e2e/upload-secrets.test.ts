import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  readLedger,
  runCli,
  sessionsWith,
  startMock,
  tempDir,
} from './helpers.js';

// A credential is never printed in any form: one with a control character is refused before any
// use, naming where it came from, and one a service echoes back (JSON-escaped, URL-encoded) is
// redacted in every form, on stderr, in --json and in the ledger. Through the built CLI.

vi.setConfig({ testTimeout: 120_000 });
let m: MockProcess;
beforeAll(async () => {
  assertBuilt();
  m = await startMock(['--processing-ms', '0']);
});
afterAll(async () => {
  await m?.stop();
});

/** Every form a secret could be printed in (a line of it is enough to leak it). */
function leaks(text: string, secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    secret,
    json,
    JSON.stringify(json).slice(1, -1),
    encodeURIComponent(secret),
    ...secret.split(/[\n\r]/).filter((part) => part.length >= 4),
  ];
  return forms.filter((f) => text.includes(f));
}

describe('a credential with a control character is refused before use, naming its source', () => {
  const rotated = () => `${m.apiKey}\n# rotated`;
  const cases: [
    string,
    (dir: string) => { args: string[]; env?: Record<string, string>; input?: string },
    string,
  ][] = [
    ['--api-key', () => ({ args: ['--api-key', rotated()] }), 'the API key from --api-key '],
    [
      '--api-key-file',
      (dir) => {
        writeFileSync(join(dir, 'key.txt'), `${rotated()}\n`);
        return { args: ['--api-key-file', 'key.txt'] };
      },
      'the API key from --api-key-file key.txt ',
    ],
    [
      '--api-key-stdin',
      () => ({ args: ['--api-key-stdin'], input: rotated() }),
      'the API key from --api-key-stdin ',
    ],
    [
      'RCS_API_KEY',
      () => ({ args: [], env: { RCS_API_KEY: rotated() } }),
      'the API key from RCS_API_KEY ',
    ],
    [
      'the config profile',
      (dir) => {
        mkdirSync(join(dir, 'config', 'rcs'), { recursive: true });
        writeFileSync(
          join(dir, 'config', 'rcs', 'config.json'),
          JSON.stringify({ profiles: { default: { 'api-key': rotated() } } }),
        );
        return { args: [] };
      },
      `config.json (profile default) `,
    ],
    ['--token', () => ({ args: ['--token', `eyJ.${rotated()}`] }), 'the token from --token '],
    [
      'RCS_TOKEN',
      () => ({ args: [], env: { RCS_TOKEN: `eyJ.${rotated()}` } }),
      'the token from RCS_TOKEN ',
    ],
  ];
  it.each(cases)('%s', async (_name, setup, names) => {
    const dir = tempDir();
    const text = labeledCall(m.repEmails[0] ?? '', 3700 + cases.findIndex((c) => c[0] === _name));
    writeFileSync(join(dir, 'a.srt'), text);
    const { args, env, input } = setup(dir);
    const r = await runCli(
      ['upload', 'a.srt', '--email', m.repEmails[0] ?? '', '--json', ...args],
      { cwd: dir, env: { RCS_BASE_URL: m.url, ...env }, ...(input !== undefined ? { input } : {}) },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(names);
    expect(r.stderr).toContain('contains a line break or another control character');
    const secret = args.includes('--token') || env?.RCS_TOKEN ? `eyJ.${rotated()}` : rotated();
    expect(leaks(r.stderr, secret)).toEqual([]);
    expect(leaks(r.stdout, secret)).toEqual([]);
    expect(readLedger(join(dir, '.rcs-ledger.jsonl'))).toEqual([]);
    expect(await sessionsWith(m, [text])).toEqual([0]);
  });
});

describe('a credential a service echoes back is redacted in every form', () => {
  // A valid one-line key with characters JSON and URLs escape.
  const key = 'rk_live_4f/9+Qz="ab\\cd';
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // A gateway that refuses the create and quotes the key: JSON-escaped, and in a URL.
    server = createServer((req, res) => {
      const sent = String(req.headers['x-api-key'] ?? '');
      req.resume();
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end(
        `key "${JSON.stringify(sent).slice(1, -1)}" is not allowed here; see https://gw.example/keys?key=${encodeURIComponent(sent)}`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('stderr, --json and the ledger`s error carry none of its forms', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.srt'), labeledCall('rep@acme.example', 3750));
    writeFileSync(join(dir, 'key.txt'), `${key}\n`);
    const r = await runCli(
      ['upload', 'a.srt', '--email', 'rep@acme.example', '--json', '--api-key-file', 'key.txt'],
      { cwd: dir, env: { RCS_BASE_URL: url } },
    );
    expect(r.code, r.stderr).not.toBe(0);
    const [line] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(line).toMatchObject({ file: 'a.srt', status: 'failed' });
    // The service's message is there, the key is not.
    expect(line.error.message).toContain('is not allowed here');
    expect(line.error.message).toContain('[REDACTED]');
    expect(leaks(r.stdout, key)).toEqual([]);
    expect(leaks(r.stderr, key)).toEqual([]);
    const ledger = readLedger(join(dir, '.rcs-ledger.jsonl'));
    expect(ledger).toMatchObject([{ status: 'failed' }]);
    expect(String(ledger[0]?.error)).toContain('[REDACTED]');
    expect(leaks(readFileSync(join(dir, '.rcs-ledger.jsonl'), 'utf8'), key)).toEqual([]);
  });
});
