/**
 * The `rcs` contract of cli.md, black-box: the built CLI spawned with this Node against a mock
 * over real HTTP. Exit codes 0–5, stdout carries results only, `--json` documents, the mock's
 * first stdout line, and secrets never printed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiValidator } from '../../packages/mock/test/helpers/openapi-validator.js';
import {
  assertBuilt,
  cliLine,
  type RunResult,
  runCli,
  runCommand,
  startCli,
  startMock,
} from '../support/cli.js';
import { ACME, type Booted, boot, EXPORTS, FIXTURE_FILE, labeled, OPEN } from './helpers.js';

const spec = openApiValidator();

let home: string;
/** Every run's home and config in `home`, whatever its directory. */
const options = (o: { cwd?: string; env?: Record<string, string>; input?: string } = {}) => ({
  cwd: o.cwd ?? home,
  env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...o.env },
  input: o.input ?? '',
});
const start = (args: string[], o?: Parameters<typeof options>[0]) => startCli(args, options(o));
const rcs = (args: string[], o?: Parameters<typeof options>[0]) => runCli(args, options(o));

let m: Booted;
let slow: Booted;
let dir: string;
const auth = () => ['--base-url', m.url, '--api-key', ACME.key];

const GOOD = labeled([
  [ACME.rep.email, 'Hello, what budget and spend do you plan?'],
  ['buyer@client.io', 'About fifty thousand.'],
]);
const SILENT = labeled([
  [ACME.coach.email, 'Hello, what budget do you plan?'],
  ['buyer@client.io', 'About fifty thousand.'],
]);

/** No credential, key or token, may appear anywhere in the output. */
function expectNoSecret(r: RunResult, ...secrets: string[]) {
  for (const s of secrets) {
    expect(r.stdout).not.toContain(s);
    expect(r.stderr).not.toContain(s);
  }
}

beforeAll(async () => {
  assertBuilt();
  home = mkdtempSync(join(tmpdir(), 'rcs-acceptance-'));
  dir = join(home, 'files');
  mkdirSync(dir);
  writeFileSync(join(dir, 'good.srt'), GOOD);
  writeFileSync(
    join(dir, 'good2.srt'),
    `${GOOD}\n3\n00:00:11,000 --> 00:00:12,000\n${ACME.rep.email}: bye\n`,
  );
  writeFileSync(join(dir, 'silent.srt'), SILENT);
  writeFileSync(join(dir, 'short.txt'), 'too short');
  m = await boot({ processingMs: 0, realTime: true });
  slow = await boot({ processingMs: 600_000, realTime: true });
});
afterAll(async () => {
  await m?.close();
  await slow?.close();
});

describe('rcs mock', () => {
  it('first stdout line is the base URL with --port 0; serves the fixture; SIGINT exits 0', async () => {
    const run = start(['mock', '--port', '0', '--fixture', FIXTURE_FILE]);
    const out = await run.seen('stdout', '\n');
    const firstLine = out.slice(0, out.indexOf('\n'));
    try {
      expect(firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(firstLine).not.toMatch(/:0$/);
      const res = await fetch(`${firstLine}/api/v1/data-exports/users`, {
        headers: { 'x-api-key': ACME.key },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { meta: { total: number } }).meta.total).toBe(5);
    } finally {
      run.child.kill('SIGINT');
      expect((await run.done).code).toBe(0);
    }
  });

  it('without a fixture, prints an API key line after the URL', async () => {
    const run = start(['mock', '--port', '0']);
    await run.seen('stdout', /API key: \S+/);
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('rcs check (offline)', () => {
  it('exit 0 when the upload would pass, with no credentials', async () => {
    const r = await rcs([
      'check',
      join(dir, 'good.srt'),
      '--email',
      ACME.rep.email,
      '--domains',
      'acme.com',
    ]);
    expect(r.code).toBe(0);
  });
  it('exit 2 when the rep never speaks (rule 8), naming the problem on stderr', async () => {
    const r = await rcs(['check', join(dir, 'silent.srt'), '--email', ACME.rep.email]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().length).toBeGreaterThan(0);
  });
  it('--json prints one report object on stdout', async () => {
    const ok = await rcs(['check', join(dir, 'good.srt'), '--email', ACME.rep.email, '--json']);
    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.stdout);
    expect(report.ok).toBe(true);
    const bad = await rcs(['check', join(dir, 'silent.srt'), '--email', ACME.rep.email, '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).ok).toBe(false);
  });
  it('classifies labels internal / external / removed (D13) in the report', async () => {
    const f = join(dir, 'mixed.srt');
    writeFileSync(
      f,
      labeled([
        [ACME.rep.email, 'Budget?'],
        ['buyer@client.io', 'Yes'],
        ['Client', 'hi'],
      ]),
    );
    const r = await rcs(['check', f, '--email', ACME.rep.email, '--domains', 'acme.com', '--json']);
    expect(r.code).toBe(0);
    const text = r.stdout;
    expect(text).toContain('internal');
    expect(text).toContain('external');
    expect(text).toContain('removed');
  });
});

describe('rcs upload', () => {
  it('exit 0; --json: one line per file { file, status: created, sessionId }; no secret printed', async () => {
    const cwd = mkdtempSync(join(home, 'u-'));
    const before = await m.totals();
    const r = await rcs(
      [...auth(), '--json', 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '');
    expect(line.status).toBe('created');
    expect(line.file).toContain('good.srt');
    expect(line.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await m.totals()).sessions).toBe(before.sessions + 1);
    expectNoSecret(r, ACME.key);
    // The ledger makes a re-run skip the same text for the same rep.
    const again = await rcs(
      [...auth(), '--json', 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email],
      { cwd },
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout.trim()).status).toBe('skipped');
    expect((await m.totals()).sessions).toBe(before.sessions + 1);
  });

  it('--wait gives the DONE session in the --json line', async () => {
    const cwd = mkdtempSync(join(home, 'w-'));
    const r = await rcs(
      [
        ...auth(),
        '--json',
        'upload',
        join(dir, 'good2.srt'),
        '--email',
        ACME.rep.email,
        '--wait',
        '--timeout',
        '30',
      ],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout.trim());
    expect(line.status).toBe('created');
    expect(line.session.state).toBe('DONE');
    expect(line.session.id).toBe(line.sessionId);
    expect(spec.check('getRealCallSession', 201, 'application/json', line.session)).toEqual([]);
  });

  it('exit 4 without credentials, one line on stderr, nothing on stdout', async () => {
    const r = await rcs(
      ['--base-url', m.url, 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email],
      {
        cwd: mkdtempSync(join(home, 'n-')),
      },
    );
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().length).toBeGreaterThan(0);
  });

  it('exit 4 when the service answers 401; the wrong key is not printed', async () => {
    const key = 'wrong-secret-key-123456';
    const r = await rcs(
      [
        '--base-url',
        m.url,
        '--api-key',
        key,
        '--verbose',
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
      ],
      { cwd: mkdtempSync(join(home, 'k-')) },
    );
    expect(r.code).toBe(4);
    expectNoSecret(r, key);
  });

  it('exit 4 for a refused bearer token given by environment; the token is not printed', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJvcmciOiJ4In0.c2lnbmF0dXJlLXNlY3JldA';
    const r = await rcs(
      ['--base-url', m.url, '-v', 'sessions', 'get', '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4'],
      {
        env: { RCS_TOKEN: token },
      },
    );
    expect(r.code).toBe(4);
    expectNoSecret(r, token, 'c2lnbmF0dXJlLXNlY3JldA');
  });

  it('exit 2 for failed pre-validation, before any request', async () => {
    const before = await m.totals();
    for (const f of ['short.txt', 'silent.srt']) {
      const r = await rcs([...auth(), 'upload', join(dir, f), '--email', ACME.rep.email], {
        cwd: mkdtempSync(join(home, 'p-')),
      });
      expect(r.code, f).toBe(2);
      expect(r.stdout).toBe('');
    }
    // A batch goes on past a bad file: the good one is uploaded, the bad one reported (exit 3).
    const batch = await rcs(
      [
        ...auth(),
        'upload',
        join(dir, 'good.srt'),
        join(dir, 'short.txt'),
        '--email',
        ACME.rep.email,
      ],
      {
        cwd: mkdtempSync(join(home, 'p-')),
      },
    );
    expect(batch.code).toBe(3);
    expect(batch.stderr).toMatch(/short\.txt: .*not uploaded, the rest of the batch goes on/);
    expect((await m.totals()).sessions).toBe(before.sessions + 1);
  });

  it('exit 2 for usage errors: unknown flag, both rep designators, neither, unreadable file', async () => {
    const cwd = mkdtempSync(join(home, 'x-'));
    const cases = [
      [...auth(), 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email, '--no-such-flag'],
      [
        ...auth(),
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
        '--user-id',
        ACME.rep.id,
      ],
      [...auth(), 'upload', join(dir, 'good.srt')],
      [...auth(), 'upload', join(dir, 'missing.srt'), '--email', ACME.rep.email],
      [...auth(), 'export', 'not-a-resource'],
    ];
    for (const args of cases) {
      const r = await rcs(args, { cwd });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().length).toBeGreaterThan(0);
      expect(r.stdout).toBe('');
    }
  });

  it('exit 1 when the service refuses a single file (422 mission_not_found)', async () => {
    const r = await rcs(
      [
        ...auth(),
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
        '--mission-id',
        'f'.repeat(24),
        '--force',
      ],
      { cwd: mkdtempSync(join(home, 'o-')) },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/mission/i);
  });

  it('exit 3 when a batch finishes with some failures; --json reports each file', async () => {
    const r = await rcs(
      [
        ...auth(),
        '--json',
        'upload',
        join(dir, 'good.srt'),
        join(dir, 'silent.srt'),
        '--email',
        ACME.rep.email,
        '--no-validate',
        '--force',
      ],
      { cwd: mkdtempSync(join(home, 'b-')) },
    );
    expect(r.code).toBe(3);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status).sort()).toEqual(['created', 'failed']);
    const failed = lines.find((l) => l.status === 'failed');
    expect(failed.file).toContain('silent.srt');
    expect(failed.error).toBeDefined();
  });
});

describe('rcs sessions', () => {
  it('get --json prints the session object as the API returns it', async () => {
    const c = await m.create({ transcript: GOOD, meetingName: 'x', email: ACME.rep.email });
    const r = await rcs([...auth(), '--json', 'sessions', 'get', c.body.id]);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.id).toBe(c.body.id);
    expect(spec.check('getRealCallSession', 201, 'application/json', s)).toEqual([]);
    const api = await m.get(c.body.id);
    expect(s).toEqual(api.body);
  });
  it('wait exits 5 on timeout and names the session id', async () => {
    const c = await slow.create({ transcript: GOOD, meetingName: 'x', email: ACME.rep.email });
    const r = await rcs([
      '--base-url',
      slow.url,
      '--api-key',
      ACME.key,
      'sessions',
      'wait',
      c.body.id,
      '--timeout',
      '1',
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(c.body.id);
  });
  it('get of an unknown session fails with exit 1 and one line on stderr', async () => {
    const r = await rcs([...auth(), 'sessions', 'get', '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });
});

describe('rcs export', () => {
  it('--out - streams one resource as JSONL: the API records unchanged', async () => {
    const r = await rcs([...auth(), 'export', 'users', '--out', '-']);
    expect(r.code).toBe(0);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const api = await m.exp('exportUsers', '/api/v1/data-exports/users', 'limit=100');
    expect(records.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...api.body.data].sort((a, b) => a.id.localeCompare(b.id)),
    );
  });
  it('all writes the nine files and a manifest whose counts match the totals', async () => {
    const out = join(mkdtempSync(join(home, 'e-')), 'out');
    const r = await rcs([...auth(), 'export', 'all', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const entries = (
      Array.isArray(manifest) ? manifest : (manifest.resources ?? manifest.entries)
    ) as {
      resource: string;
      file: string;
      format: string;
      count: number;
      total: number;
      sha256: string;
    }[];
    expect(entries.map((e) => e.resource).sort()).toEqual(EXPORTS.map(([, res]) => res).sort());
    for (const e of entries) {
      const text = readFileSync(join(out, `${e.resource}.jsonl`), 'utf8');
      const n = text.trim() === '' ? 0 : text.trim().split('\n').length;
      expect(e.count, e.resource).toBe(n);
      expect(e.total, e.resource).toBe(n);
      expect(e.format).toBe('jsonl');
      expect(e.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expectNoSecret(r, ACME.key);
  });
  it('an empty export is a success (exit 0)', async () => {
    const r = await rcs([
      '--base-url',
      m.url,
      '--api-key',
      OPEN.key,
      'export',
      'tracks',
      '--out',
      '-',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('');
  });
  it('--archived only passes the D8 filter', async () => {
    const r = await rcs([...auth(), 'export', 'tracks', '--archived', 'only', '--out', '-']);
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual([ACME.archivedTrack]);
  });
});

describe('streams, flags and credentials (cli.md Global)', () => {
  it('off a TTY, a successful command writes its result on stdout, and on stderr only what a cron log needs', async () => {
    const cwd = mkdtempSync(join(home, 's-'));
    const up = await rcs(
      [...auth(), 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email, '--force'],
      { cwd },
    );
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/created/);
    expect(up.stdout).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(up.stderr).toBe('');
    const ex = await rcs([...auth(), 'export', 'teams', '--out', join(cwd, 'o')], { cwd });
    expect(ex.code).toBe(0);
    // A finished export's one line (cli.md), so that a cron log shows what ran.
    expect(ex.stderr).toMatch(
      /^rcs export: teams, \d+ records, written to \S+ \(manifest\.json\) in [\d.]+ s\n$/,
    );
  });

  it('bad flag values are usage errors (exit 2) before any request', async () => {
    const cases = [
      [...auth(), 'export', 'users', '--format', 'xml'],
      [...auth(), 'export', 'tracks', '--archived', 'exclude'],
      [...auth(), 'upload', join(dir, 'good.srt'), '--email', ACME.rep.email, '--concurrency', '0'],
      [...auth(), 'sessions', 'wait', '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4', '--timeout', 'abc'],
      [...auth(), 'upload', join(dir, 'good.srt'), '--email', 'not-an-email'],
      [
        ...auth(),
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
        '--mission-id',
        'XYZ',
      ],
    ];
    for (const args of cases) {
      const r = await rcs(args, { cwd: mkdtempSync(join(home, 'f-')) });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n').length, args.join(' ')).toBeGreaterThanOrEqual(1);
      expect(r.stdout).toBe('');
    }
  });

  it('exit 1 when the service cannot be reached', async () => {
    const { createServer } = await import('node:net');
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const r = await rcs([
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--api-key',
      ACME.key,
      'sessions',
      'get',
      '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().length).toBeGreaterThan(0);
    expectNoSecret(r, ACME.key);
  });

  it('credentials from --api-key-stdin and --api-key-file', async () => {
    const viaStdin = await rcs(
      ['--base-url', m.url, '--api-key-stdin', 'export', 'teams', '--out', '-'],
      {
        input: `${ACME.key}\n`,
      },
    );
    expect(viaStdin.code, viaStdin.stderr).toBe(0);
    expect(viaStdin.stdout).toContain('Enterprise');
    const keyFile = join(home, 'key.txt');
    writeFileSync(keyFile, `${ACME.key}\n`);
    const viaFile = await rcs([
      '--base-url',
      m.url,
      '--api-key-file',
      keyFile,
      'export',
      'teams',
      '--out',
      '-',
    ]);
    expect(viaFile.code, viaFile.stderr).toBe(0);
    expectNoSecret(viaFile, ACME.key);
  });

  it('precedence: flag, then environment, then the config file', async () => {
    const cfgHome = mkdtempSync(join(home, 'cfg-'));
    const env = { XDG_CONFIG_HOME: cfgHome };
    mkdirSync(join(cfgHome, 'rcs'), { recursive: true });
    // Whatever shape the profiles take, `rcs config set` writes them.
    const set1 = await rcs(['config', 'set', 'base-url', m.url], { env });
    const set2 = await rcs(['config', 'set', 'api-key', '-'], { env, input: 'config-key-wrong' });
    expect([set1.code, set2.code]).toEqual([0, 0]);
    expectNoSecret(set2, 'config-key-wrong');
    const list = await rcs(['config', 'list'], { env });
    expectNoSecret(list, 'config-key-wrong');
    // Config only: its wrong key is used → 401 → exit 4.
    const fromConfig = await rcs(['export', 'teams', '--out', '-'], { env });
    expect(fromConfig.code).toBe(4);
    // The environment beats the config file.
    const fromEnv = await rcs(['export', 'teams', '--out', '-'], {
      env: { ...env, RCS_API_KEY: ACME.key },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    // A flag beats the environment.
    const fromFlag = await rcs(['--api-key', 'flag-key-wrong', 'export', 'teams', '--out', '-'], {
      env: { ...env, RCS_API_KEY: ACME.key },
    });
    expect(fromFlag.code).toBe(4);
    expectNoSecret(fromFlag, 'flag-key-wrong', ACME.key);
  });

  it('export --format csv writes DIR/<resource>.csv and the manifest says csv', async () => {
    const out = join(mkdtempSync(join(home, 'c-')), 'out');
    const r = await rcs([...auth(), 'export', 'users', 'teams', '--format', 'csv', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, 'users.csv'))).toBe(true);
    expect(existsSync(join(out, 'teams.csv'))).toBe(true);
    const csv = readFileSync(join(out, 'teams.csv'), 'utf8');
    expect(csv).toContain('Enterprise');
    expect(csv.split(/\r?\n/)[0]).toMatch(/id/);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(JSON.stringify(manifest)).toContain('"csv"');
  });

  it('a failed export (401) exits 4 and leaves earlier complete files untouched', async () => {
    const out = join(mkdtempSync(join(home, 'a-')), 'out');
    const first = await rcs([...auth(), 'export', 'users', '--out', out]);
    expect(first.code).toBe(0);
    const before = readFileSync(join(out, 'users.jsonl'), 'utf8');
    const failed = await rcs([
      '--base-url',
      m.url,
      '--api-key',
      'nope-nope',
      'export',
      'users',
      '--out',
      out,
    ]);
    expect(failed.code).toBe(4);
    expect(readFileSync(join(out, 'users.jsonl'), 'utf8')).toBe(before);
  });

  it('sessions wait prints the DONE session and exits 0', async () => {
    const c = await m.create({ transcript: GOOD, meetingName: 'x', email: ACME.rep.email });
    const r = await rcs([...auth(), '--json', 'sessions', 'wait', c.body.id, '--timeout', '30']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).state).toBe('DONE');
  });
});

describe('rcs mock --fixture with a bad fixture', () => {
  it('refuses to start, exits non-zero (2: input rejected) and names the JSON path on stderr', async () => {
    const f = JSON.parse(readFileSync(FIXTURE_FILE, 'utf8'));
    f.organizations[0].users[1].email = 'not-an-email';
    const bad = join(home, 'bad-fixture.json');
    writeFileSync(bad, JSON.stringify(f));
    const r = await rcs(['mock', '--port', '0', '--fixture', bad]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('organizations[0].users[1].email');
  });
});

describe('more of the contract', () => {
  it('rcs demo: no set-up, exit 0, the score on stdout, nine exports and a manifest in ./rcs-demo (its own, never ./rcs-export)', async () => {
    const cwd = mkdtempSync(join(home, 'demo-'));
    const r = await rcs(['demo'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/score/i);
    for (const [, res] of EXPORTS) {
      expect(existsSync(join(cwd, 'rcs-demo', `${res}.jsonl`)), res).toBe(true);
    }
    expect(existsSync(join(cwd, 'rcs-demo', 'manifest.json'))).toBe(true);
    expect(existsSync(join(cwd, 'rcs-export'))).toBe(false);
  });

  it('upload of a directory means its transcript files', async () => {
    const d = mkdtempSync(join(home, 'dir-'));
    writeFileSync(join(d, 'a.srt'), GOOD);
    writeFileSync(join(d, 'b.txt'), 'A plain call about the budget and the spend.');
    const r = await rcs([...auth(), '--json', 'upload', d, '--email', ACME.rep.email], { cwd: d });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.status)).toEqual(['created', 'created']);
  });

  it('--json failed line carries error { code, status, message } (single file, exit 1)', async () => {
    const r = await rcs(
      [
        ...auth(),
        '--json',
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
        '--scorecard-id',
        'e'.repeat(24),
        '--force',
      ],
      { cwd: mkdtempSync(join(home, 'j-')) },
    );
    expect(r.code).toBe(1);
    const line = JSON.parse(r.stdout.trim());
    expect(line.status).toBe('failed');
    expect(line.error.code).toBe('scorecard_not_found');
    expect(line.error.status).toBe(422);
    expect(typeof line.error.message).toBe('string');
  });

  it('a 401 in a batch exits 4', async () => {
    const r = await rcs(
      [
        '--base-url',
        m.url,
        '--api-key',
        'bad-bad-bad',
        'upload',
        join(dir, 'good.srt'),
        join(dir, 'good2.srt'),
        '--email',
        ACME.rep.email,
      ],
      { cwd: mkdtempSync(join(home, 'q-')) },
    );
    expect(r.code).toBe(4);
    expectNoSecret(r, 'bad-bad-bad');
  });

  it('--out - with more than one resource is a usage error (exit 2)', async () => {
    const r = await rcs([...auth(), 'export', 'users', 'teams', '--out', '-']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('--token works as Authorization: Bearer', async () => {
    const { jwt } = await import('./helpers.js');
    const token = await jwt(ACME.org);
    const r = await rcs(['--base-url', m.url, '--token', token, 'export', 'teams', '--out', '-']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Enterprise');
    expectNoSecret(r, token);
  });

  it('the mock of `rcs mock` without a fixture prints the rep emails a newcomer can use', async () => {
    const run = start(['mock', '--port', '0']);
    const out = await run.seen(
      'stdout',
      (text) => /API key: \S+/.test(text) && /[\w.+-]+@[\w-]+\.[\w.-]+/.test(text),
    );
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(0);
    // The printed key and an email work against the printed URL.
    const url = out.split('\n')[0] ?? '';
    const key = /API key: (\S+)/.exec(out)?.[1] ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(key.length).toBeGreaterThan(0);
  });
});

describe('check report, manifest, conversion and signals', () => {
  it('check --json reports format, cue count, classified speakers, rep speaks, KPIs; KPIs equal the service (D21)', async () => {
    const f = join(dir, 'kpi.srt');
    writeFileSync(
      f,
      labeled([
        [ACME.rep.email, 'one two three four five six'],
        ['buyer@client.io', 'reply words'],
        [ACME.coach.email, 'coach says hi'],
        ['Client', 'removed label'],
      ]),
    );
    const r = await rcs(['check', f, '--email', ACME.rep.email, '--domains', 'acme.com', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.format).toBe('labeled-srt');
    expect(report.cueCount).toBe(4);
    expect(report.repSpeaks).toBe(true);
    const kinds = Object.fromEntries(
      (report.speakers as { label: string; kind: string }[]).map((s) => [s.label, s.kind]),
    );
    expect(kinds).toMatchObject({
      [ACME.rep.email]: 'internal',
      [ACME.coach.email]: 'internal',
      'buyer@client.io': 'external',
    });
    expect(JSON.stringify(report.removedLabels ?? report.speakers)).toMatch(/client/i);
    // The same file through the service.
    const c = await m.create({
      transcript: readFileSync(f, 'utf8'),
      meetingName: 'k',
      email: ACME.rep.email,
    });
    const done = (await m.get(c.body.id)).body;
    expect(done.state).toBe('DONE');
    expect(report.kpis.listenRatio).toBe(done.kpis.listenRatio);
    expect(report.kpis.longestMonologue).toBe(done.kpis.longestMonologue);
    expect(report.kpis.talkSpeed).toBe(done.kpis.talkSpeed);
  });

  it('check without --domains treats every valid e-mail label as internal (R4)', async () => {
    const r = await rcs(['check', join(dir, 'good.srt'), '--email', ACME.rep.email, '--json']);
    const report = JSON.parse(r.stdout);
    const buyer = (report.speakers as { label: string; kind: string }[]).find(
      (s) => s.label === 'buyer@client.io',
    );
    expect(buyer?.kind).toBe('internal');
  });

  it('manifest entries carry resource, file, format, count, total, sha256 (of the file), startedAt, finishedAt', async () => {
    const cwd = mkdtempSync(join(home, 'man-'));
    const r = await rcs([...auth(), 'export', 'teams', 'users'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const out = join(cwd, 'rcs-export'); // default DIR
    const raw = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const entries = (Array.isArray(raw) ? raw : (raw.resources ?? raw.entries)) as Record<
      string,
      unknown
    >[];
    const { createHash } = await import('node:crypto');
    for (const e of entries) {
      for (const k of [
        'resource',
        'file',
        'format',
        'count',
        'total',
        'sha256',
        'startedAt',
        'finishedAt',
      ]) {
        expect(e, `${e.resource}.${k}`).toHaveProperty(k);
      }
      const file = String(e.file);
      const bytes = readFileSync(
        file.startsWith('/') ? file : join(out, file.replace(/^.*\//, '')),
      );
      expect(e.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('--bom starts the CSV with a UTF-8 BOM', async () => {
    const out = join(mkdtempSync(join(home, 'bom-')), 'o');
    const r = await rcs([...auth(), 'export', 'teams', '--format', 'csv', '--bom', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'teams.csv'))[0]).toBe(0xef);
  });

  it('a WebVTT upload with --speaker maps names to e-mails; an unmapped speaker stops before any request', async () => {
    const vtt = [
      'WEBVTT',
      '',
      '00:00:01.000 --> 00:00:04.000',
      '<v Ana Ruiz>What budget do you have?',
      '',
      '00:00:05.000 --> 00:00:08.000',
      '<v Jordan Lee>About fifty thousand.',
      '',
    ].join('\n');
    const d = mkdtempSync(join(home, 'vtt-'));
    writeFileSync(join(d, 'call.vtt'), vtt);
    const before = await m.totals();
    const unmapped = await rcs(
      [
        ...auth(),
        'upload',
        join(d, 'call.vtt'),
        '--email',
        ACME.rep.email,
        '--speaker',
        `Ana Ruiz=${ACME.rep.email}`,
      ],
      { cwd: d },
    );
    expect(unmapped.code).toBe(2);
    expect((await m.totals()).sessions).toBe(before.sessions);
    const r = await rcs(
      [
        ...auth(),
        '--json',
        'upload',
        join(d, 'call.vtt'),
        '--email',
        ACME.rep.email,
        '--speaker',
        `Ana Ruiz=${ACME.rep.email}`,
        '--speaker',
        'Jordan Lee=jordan@client.io',
      ],
      { cwd: d },
    );
    expect(r.code, r.stderr).toBe(0);
    const id = JSON.parse(r.stdout.trim()).sessionId;
    const s = (await m.get(id)).body;
    expect(s.call.transcript).toContain(`${ACME.rep.email}: What budget do you have?`);
    expect(s.call.transcript).toContain('jordan@client.io: About fifty thousand.');
    expect(s.participantUserIds).toEqual([ACME.rep.id]);
  });

  it('SIGINT while waiting exits 130', async () => {
    const c = await slow.create({ transcript: GOOD, meetingName: 'x', email: ACME.rep.email });
    const args = [
      '--base-url',
      slow.url,
      '--api-key',
      ACME.key,
      '-v',
      'sessions',
      'wait',
      c.body.id,
      '--timeout',
      '60',
    ];
    const run = start(args);
    // Interrupt once the first poll has been logged (the command is surely running by then).
    await run.seen('stderr', 'GET');
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
  });

  it('no terminal escape sequences off a TTY (NO_COLOR, non-TTY)', async () => {
    const r = await rcs([
      ...auth(),
      'sessions',
      'get',
      (await m.create({ transcript: GOOD, meetingName: 'x', email: ACME.rep.email })).body.id,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stderr).not.toMatch(/\u001b\[/);
  });
});

describe('rcs mock flags and profiles', () => {
  /** `rcs mock ARGS`, ready once its --json line is out; stop() sends SIGINT, gives the exit code. */
  async function mock(args: string[]) {
    const m = await startMock(args);
    return { ...m, stop: () => m.stop('SIGINT') };
  }

  it('--seed makes the demo dataset reproducible; another seed gives other data', async () => {
    const users = async (seed: string) => {
      const s = await mock(['--seed', seed, '--records', '200']);
      try {
        const res = await fetch(`${s.url}/api/v1/data-exports/users?limit=100`, {
          headers: { 'x-api-key': s.apiKey },
        });
        expect(res.status).toBe(200);
        return JSON.stringify(((await res.json()) as { data: unknown[] }).data);
      } finally {
        expect(await s.stop()).toBe(0);
      }
    };
    const a = await users('7');
    expect(await users('7')).toBe(a);
    expect(await users('8')).not.toBe(a);
  });

  it('--processing-ms 0 and --rate-limit 1 with --fixture', async () => {
    const s = await mock(['--fixture', FIXTURE_FILE, '--processing-ms', '0', '--rate-limit', '1']);
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${s.url}/api/v1/data-exports/teams`, {
          headers: { 'x-api-key': ACME.key },
        });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get('retry-after');
        await res.arrayBuffer();
      }
      expect(statuses).toContain(429);
      expect(retryAfter).toMatch(/^\d+$/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('--profile and RCS_PROFILE pick a profile of the config file', async () => {
    const cfgHome = mkdtempSync(join(home, 'prof-'));
    const env = { XDG_CONFIG_HOME: cfgHome };
    for (const [k, v, profile] of [
      ['base-url', m.url, 'good'],
      ['api-key', ACME.key, 'good'],
      ['base-url', m.url, 'bad'],
      ['api-key', 'bad-profile-key', 'bad'],
    ] as const) {
      const r = await rcs(['config', 'set', k, k === 'api-key' ? '-' : v, '--profile', profile], {
        env,
        input: v,
      });
      expect(r.code, r.stderr).toBe(0);
    }
    expect((await rcs(['--profile', 'good', 'export', 'teams', '--out', '-'], { env })).code).toBe(
      0,
    );
    expect((await rcs(['--profile', 'bad', 'export', 'teams', '--out', '-'], { env })).code).toBe(
      4,
    );
    const viaEnv = await rcs(['export', 'teams', '--out', '-'], {
      env: { ...env, RCS_PROFILE: 'good' },
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    // The flag beats the environment.
    const flagWins = await rcs(['--profile', 'bad', 'export', 'teams', '--out', '-'], {
      env: { ...env, RCS_PROFILE: 'good' },
    });
    expect(flagWins.code).toBe(4);
  });

  it('RCS_BASE_URL and RCS_API_KEY from the environment', async () => {
    const r = await rcs(['export', 'teams', '--out', '-'], {
      env: { RCS_BASE_URL: m.url, RCS_API_KEY: ACME.key },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Enterprise');
  });
});

describe('terminal safety on a TTY (cli.md: control characters neutralised)', () => {
  const hasScript = existsSync('/usr/bin/script');
  it.skipIf(!hasScript)(
    'escape sequences from a transcript are not sent raw to a terminal',
    async () => {
      const esc = `1\n00:00:01,000 --> 00:00:04,000\n${ACME.rep.email}: our budget \u001b[31mRED\u001b]0;pwned\u0007 spend\n\n2\n00:00:05,000 --> 00:00:06,000\nbuyer@client.io: ok \u001b[2J\n`;
      const c = await m.create({ transcript: esc, meetingName: 'x', email: ACME.rep.email });
      expect(c.status).toBe(201);
      const f = join(home, 'esc.srt');
      writeFileSync(f, esc);
      for (const args of [
        [...auth(), 'sessions', 'get', c.body.id],
        ['check', f, '--email', ACME.rep.email],
      ]) {
        const r = await runCommand(
          '/usr/bin/script',
          ['-qc', cliLine(args), '/dev/null'],
          options(),
        );
        expect(r.code, args.join(' ')).toBe(0);
        if (args.includes('get')) expect(r.stdout).toContain('budget'); // the evidence is shown
        expect(r.stdout).not.toContain('\u001b]0;pwned');
        expect(r.stdout).not.toContain('\u001b[2J');
        expect(r.stdout).not.toContain('\u001b[31mRED');
      }
    },
  );
});

describe('large output and upload timeouts', () => {
  it('piped stdout arrives whole: --out - of a large demo export has exactly meta.total lines', async () => {
    const { startMockServer } = await import('@rcs/mock/node');
    const big = await startMockServer({ port: 0, records: 30_000, processingMs: 0 });
    try {
      const key = big.info.apiKeys[0] ?? '';
      const totals: [string, number][] = [];
      for (const [op, res] of EXPORTS) {
        const r = await fetch(`${big.url}/api/v1/data-exports/${res}?limit=1`, {
          headers: { 'x-api-key': key },
        });
        totals.push([res, ((await r.json()) as { meta: { total: number } }).meta.total]);
        expect(op).toBeTruthy();
      }
      const [resource, total] = totals.sort((a, b) => b[1] - a[1])[0] ?? ['users', 0];
      expect(total).toBeGreaterThan(5000);
      const r = await rcs([
        '--base-url',
        big.url,
        '--api-key',
        key,
        'export',
        resource,
        '--out',
        '-',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      expect(lines.length).toBe(total);
      expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(total);
    } finally {
      await big.close();
    }
  });

  it('upload --wait past --timeout exits 5 and names the session id', async () => {
    const r = await rcs(
      [
        '--base-url',
        slow.url,
        '--api-key',
        ACME.key,
        '--json',
        'upload',
        join(dir, 'good.srt'),
        '--email',
        ACME.rep.email,
        '--wait',
        '--timeout',
        '1',
        '--force',
      ],
      { cwd: mkdtempSync(join(home, 't-')) },
    );
    expect(r.code).toBe(5);
    const sessions = await slow.exp(
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
      'limit=100',
    );
    const ids = sessions.body.data.map((s: { id: string }) => s.id) as string[];
    expect(ids.some((id) => r.stderr.includes(id) || r.stdout.includes(id))).toBe(true);
  });
});

describe('the upload ledger (cli.md upload)', () => {
  it('records content hash, rep and session id; skips the same text for the same rep only; --force uploads again', async () => {
    const { createHash } = await import('node:crypto');
    const cwd = mkdtempSync(join(home, 'ledger-'));
    const file = join(cwd, 'note.txt');
    const text = 'A plain call note about the budget and the spend.';
    writeFileSync(file, text);
    const ledger = join(cwd, 'my-ledger.jsonl');
    const run = (email: string, ...extra: string[]) =>
      rcs([...auth(), '--json', 'upload', file, '--email', email, '--ledger', ledger, ...extra], {
        cwd,
      });
    const first = await run(ACME.rep.email);
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout.trim()).sessionId;
    const entries = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries).toHaveLength(1);
    const sha = createHash('sha256').update(text).digest('hex');
    expect(JSON.stringify(entries[0])).toContain(sha);
    expect(JSON.stringify(entries[0])).toContain(ACME.rep.email);
    expect(JSON.stringify(entries[0])).toContain(id);
    expect(existsSync(join(cwd, '.rcs-ledger.jsonl'))).toBe(false);
    // Same text, same rep: skipped. Another rep: uploaded. --force: uploaded again.
    expect(JSON.parse((await run(ACME.rep.email)).stdout.trim()).status).toBe('skipped');
    expect(JSON.parse((await run(ACME.coach.email)).stdout.trim()).status).toBe('created');
    const forced = JSON.parse((await run(ACME.rep.email, '--force')).stdout.trim());
    expect(forced.status).toBe('created');
    expect(forced.sessionId).not.toBe(id);
  });
});

describe('documented help', () => {
  it('rcs help exit-codes lists the table of cli.md', async () => {
    const r = await rcs(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '130']) {
      expect(r.stdout).toMatch(new RegExp(`^\\s*${code}\\s`, 'm'));
    }
  });
});

describe('service refusals through the CLI (exit 1, a clear line on stderr)', () => {
  it.each([
    ['413 payload_too_large', 'big.txt', ACME.rep.email, /1 MiB|too large/i],
    [
      '409 email_exists_in_identity_provider',
      'note409.txt',
      'taken@acme.com',
      /identity provider|another organi[sz]ation|exists/i,
    ],
    ['422 email_domain_not_allowed', 'note422.txt', 'x@other.org', /domain/i],
  ])('%s', async (_name, fileName, email, message) => {
    const d = mkdtempSync(join(home, 'ref-'));
    const f = join(d, fileName);
    writeFileSync(
      f,
      fileName === 'big.txt'
        ? 'a'.repeat(1024 * 1024 + 100)
        : 'A plain call note about the budget.',
    );
    const r = await rcs([...auth(), 'upload', f, '--email', email, '--no-validate'], { cwd: d });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expectNoSecret(r, ACME.key);
  });
});
