import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  cliLine,
  labeledCall,
  runCli,
  runCommand,
  startCli,
  tempDir,
} from './helpers.js';

// The conventions every command shares (cli.md): stdout results only, --json whole through a
// pipe, credentials by flag > env > profile, secrets never printed, control characters
// neutralised, help with examples, completion, and the mock and demo commands.

let server: MockServer;
let key: string;
let rep: string;
let dir: string;

beforeAll(async () => {
  assertBuilt();
  server = await startMockServer({ port: 0, processingMs: 50 });
  key = server.info.apiKey ?? '';
  rep = server.info.repEmails[0] ?? '';
  dir = tempDir();
});
afterAll(async () => {
  await server?.close();
});

const env = (extra: Record<string, string | undefined> = {}) => ({
  RCS_BASE_URL: server.url,
  RCS_API_KEY: key,
  ...extra,
});

async function uploadAndWait(text: string, name: string): Promise<string> {
  writeFileSync(join(dir, name), text);
  const r = await runCli(['upload', name, '--email', rep, '--wait', '--json', '--force'], {
    cwd: dir,
    env: env(),
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).sessionId as string;
}

describe('output', () => {
  it('piped --json over 64 KiB arrives whole (process.exitCode, not process.exit)', async () => {
    const filler = Array.from({ length: 750 }, (_, i) =>
      [
        `${i + 2}`,
        `00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')},000 --> 00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')},900`,
        `${rep}: line ${i} about the budget and the next step for this account.`,
        '',
      ].join('\n'),
    ).join('\n');
    const text = `1\n00:00:00,000 --> 00:00:00,500\n${rep}: Hello.\n\n${filler}`;
    expect(text.length).toBeGreaterThan(70_000);
    expect(text.length).toBeLessThan(100_000);
    const id = await uploadAndWait(text, 'big.srt');
    const r = await runCli(['sessions', 'get', id, '--json'], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(64 * 1024);
    const session = JSON.parse(r.stdout);
    expect(session.id).toBe(id);
    expect(session.call.transcript.length).toBeGreaterThan(70_000);
  });

  it('service-supplied text has terminal control characters neutralised', async () => {
    const text = labeledCall(rep, 1).replace(
      'Thanks for',
      '\u001b[2J\u001b]0;pwned\u0007Thanks for',
    );
    const id = await uploadAndWait(text, 'esc.srt');
    const r = await runCli(['sessions', 'get', id], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(r.stdout).toContain('\\x1b[2J');
    // JSON stays the API's data, escaped by JSON itself.
    const json = await runCli(['sessions', 'get', id, '--json'], { cwd: dir, env: env() });
    expect(JSON.parse(json.stdout).call.transcript).toContain('\u001b[2J');
  });

  it('sessions get: 404 and a malformed id', async () => {
    const missing = await runCli(['sessions', 'get', '11111111-2222-4333-8444-555555555555'], {
      cwd: dir,
      env: env(),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^rcs: not found \(404\)/);
    const bad = await runCli(['sessions', 'get', 'abc'], { cwd: dir, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"abc" is not a session id/);
  });
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`): stdout and stderr are TTYs. */
function runOnTty(
  args: string[],
  extraEnv: Record<string, string>,
  columns?: number,
): Promise<string> {
  const command = cliLine(args);
  const line = columns === undefined ? command : `stty cols ${columns} rows 40; ${command}`;
  return runCommand('script', ['-qec', line, '/dev/null'], {
    cwd: dir,
    env: { ...env(), NO_COLOR: undefined, TERM: 'xterm', ...extraEnv },
  }).then((r) => r.stdout);
}

// util-linux `script` gives the CLI a pseudo-terminal; where it is missing these tests are skipped.
const hasScript = existsSync('/usr/bin/script') || existsSync('/bin/script');

describe.skipIf(!hasScript)('on a terminal', () => {
  it('shows progress (spinner lines) and colour on a TTY; NO_COLOR turns colour off', async () => {
    writeFileSync(join(dir, 'tty.srt'), labeledCall(rep, 77));
    const args = ['upload', 'tty.srt', '--email', rep, '--wait', '--force'];
    const coloured = await runOnTty(args, {});
    expect(coloured).toMatch(
      /tty\.srt \([0-9a-f-]{36}\): (waiting for the score|PENDING|PROCESSING)/,
    );
    expect(coloured).toContain('\u001b[1mSession '); // bold heading
    expect(coloured).toMatch(/1 created, 0 skipped, 0 failed/); // the summary is prose: TTY only
    const plain = await runOnTty(args, { NO_COLOR: '1' });
    expect(plain).toMatch(/DONE {2}score \d+\/100/);
    expect(plain).not.toMatch(/\u001b\[(1|2|3\d)m/);
  });
});

describe.skipIf(!hasScript)('sessions wait on a terminal (the progress spinner)', () => {
  it('spins while it polls, then prints the session; a 0-column pty does not hang it', {
    timeout: 30_000,
  }, async () => {
    writeFileSync(join(dir, 'wait.srt'), labeledCall(rep, 78));
    const up = await runCli(['upload', 'wait.srt', '--email', rep, '--force'], {
      cwd: dir,
      env: env(),
    });
    const id = up.stdout.trim().split(/\s+/)[2]!;
    const sized = await runOnTty(['sessions', 'wait', id], {}, 100);
    expect(sized).toMatch(/waiting for session/);
    expect(sized).toMatch(/DONE {2}score \d+\/100/);
    const zero = await runOnTty(['sessions', 'wait', id], {});
    expect(zero).toMatch(/DONE {2}score \d+\/100/);
  });
});

describe('credentials and config', () => {
  it('config set/get/list: file 0600, secrets never shown, then used as the profile', async () => {
    const home = tempDir();
    const run = (args: string[], input?: string, extra: Record<string, string | undefined> = {}) =>
      runCli(args, {
        cwd: home,
        env: { RCS_API_KEY: undefined, ...extra },
        ...(input === undefined ? {} : { input }),
      });
    expect((await run(['config', 'set', 'base-url', server.url])).code).toBe(0);
    expect((await run(['config', 'set', 'api-key', '-'], `${key}\n`)).code).toBe(0);
    const path = join(home, 'config', 'rcs', 'config.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      profiles: { default: { 'base-url': server.url, 'api-key': key } },
    });
    const list = await run(['config', 'list']);
    expect(list.stdout).toContain(server.url);
    expect(list.stdout).not.toContain(key);
    const get = await run(['config', 'get', 'api-key']);
    expect(get.stdout).toMatch(/hidden/);
    expect(get.stdout).not.toContain(key);

    // The profile is used when nothing else is given…
    const users = await run(['export', 'teams', '--out', '-']);
    expect(users.code, users.stderr).toBe(0);
    // …the environment wins over it (a wrong key in the env gives 401 → exit 4)…
    const envWins = await run(['export', 'teams', '--out', '-'], undefined, {
      RCS_API_KEY: 'wrong-key-123',
    });
    expect(envWins.code).toBe(4);
    expect(`${envWins.stdout}${envWins.stderr}`).not.toContain('wrong-key-123');
    // …and a flag wins over the environment.
    writeFileSync(join(home, 'key.txt'), `${key}\n`);
    const flagWins = await run(
      ['export', 'teams', '--out', '-', '--api-key-file', 'key.txt'],
      undefined,
      { RCS_API_KEY: 'wrong-key-123' },
    );
    expect(flagWins.code, flagWins.stderr).toBe(0);
    const stdinKey = await run(['export', 'teams', '--out', '-', '--api-key-stdin'], key, {
      RCS_API_KEY: 'wrong-key-123',
    });
    expect(stdinKey.code, stdinKey.stderr).toBe(0);

    const noProfile = await run(['export', 'teams', '--out', '-', '--profile', 'staging']);
    expect(noProfile.code).toBe(2);
    expect(noProfile.stderr).toMatch(
      /no profile "staging".*rcs config set base-url URL --profile staging/,
    );
    const badKey = await run(['config', 'set', 'apikey', 'x']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(
      /unknown config key "apikey"; the keys are base-url, api-key, token/,
    );
    const glued = await run(['config', 'get', 'api-key=sk_live_SECRET123']);
    expect(glued.code).toBe(2);
    expect(glued.stderr).toMatch(/unknown config key "api-key=…"/);
    expect(glued.stderr).not.toContain('SECRET');
  });

  it('no service URL: exit 2 with what to set', async () => {
    const r = await runCli(['sessions', 'get', '11111111-2222-4333-8444-555555555555'], {
      cwd: tempDir(),
      env: { RCS_API_KEY: 'k' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no service URL: pass --base-url, set RCS_BASE_URL/);
  });
});

describe('help, exit codes, completion', () => {
  it('every command has --help with examples', async () => {
    for (const cmd of [
      [],
      ['upload'],
      ['check'],
      ['sessions'],
      ['sessions', 'get'],
      ['sessions', 'wait'],
      ['export'],
      ['mock'],
      ['demo'],
      ['config'],
      ['completion'],
    ]) {
      const r = await runCli([...cmd, '--help'], { cwd: dir });
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.stdout, cmd.join(' ')).toMatch(/Examples:\n {2}\$ rcs /);
    }
  });

  it('a mistyped command is one line with the suggestion (exit 2)', async () => {
    const r = await runCli(['uplod', 'x.srt'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("rcs: unknown command 'uplod' (Did you mean upload?) (see rcs --help)\n");
  });

  it('a mistyped credential flag never prints its value (exit 2, one line)', async () => {
    const secret = 'sk_live_SECRET123';
    for (const [args, shown] of [
      [[`--api-keyy=${secret}`, 'sessions', 'get', 'x'], "unknown option '--api-keyy=…'"],
      [['sessions', 'get', 'x', `--tokn=${secret}`], "unknown option '--tokn=…'"],
      [[`-K${secret}`, 'sessions', 'get', 'x'], "unknown option '-K…'"],
      // The value as a separate argument: commander quotes only the option.
      [['--api-keyy', secret, 'sessions', 'get', 'x'], "unknown option '--api-keyy'"],
    ] as const) {
      const r = await runCli([...args], { cwd: dir });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).not.toContain('SECRET');
      expect(r.stderr, args.join(' ')).toContain(shown);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('rcs help exit-codes lists the contract', async () => {
    const r = await runCli(['help', 'exit-codes'], { cwd: dir });
    expect(r.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 130])
      expect(r.stdout).toMatch(new RegExp(`^ +${code}  \\w`, 'm'));
    const json = await runCli(['help', 'exit-codes', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout).map((e: { code: number }) => e.code)).toEqual([
      0, 1, 2, 3, 4, 5, 130,
    ]);
  });

  it('completion scripts: bash parses, and all three know the commands and export names', async () => {
    const bash = await runCli(['completion', 'bash'], { cwd: dir });
    expect(bash.code).toBe(0);
    const file = join(dir, 'rcs.bash');
    writeFileSync(file, bash.stdout);
    execFileSync('bash', ['-n', file]);
    // The function completes `rcs exp` → export and `rcs export us` → users.
    const complete = (line: string) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source ${file}; COMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _rcs_complete; echo "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      ).trim();
    expect(complete('rcs exp')).toBe('export');
    expect(complete('rcs export us')).toBe('users');
    expect(complete('rcs upload --conc')).toBe('--concurrency');
    for (const shell of ['zsh', 'fish']) {
      const r = await runCli(['completion', shell], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('upload');
      expect(r.stdout).toContain('mission-assignments');
    }
    const bad = await runCli(['completion', 'tcsh'], { cwd: dir });
    expect(bad.code).toBe(2);
  });
});

describe('rcs export wiring (the command itself is tested in export*.test.ts)', () => {
  it('bad flags are usage errors before any request (exit 2)', async () => {
    const format = await runCli(['export', 'users', '--format', 'xml'], { cwd: dir, env: env() });
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/--format.*xml.*jsonl, csv/);
    const conc = await runCli(['export', 'users', '--concurrency', '0'], { cwd: dir, env: env() });
    expect(conc.code).toBe(2);
    expect(conc.stderr).toMatch(/--concurrency must be a whole number from 1 to 64/);
    const archived = await runCli(['export', 'tracks', '--archived', 'never'], {
      cwd: dir,
      env: env(),
    });
    expect(archived.code).toBe(2);
  });

  it('passes its flags through: one resource to stdout as JSON lines', async () => {
    const r = await runCli(['export', 'tracks', '--archived', 'only', '--out', '-'], {
      cwd: dir,
      env: env(),
    });
    expect(r.code, r.stderr).toBe(0);
    const tracks = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(tracks.length).toBeGreaterThan(0);
    expect(tracks.every((t: { archived: boolean }) => t.archived)).toBe(true);
  });
});

describe('rcs mock and rcs demo', () => {
  it('rcs mock: first stdout line is the URL, then the key; serves; SIGINT exits 0', async () => {
    const run = startCli(['mock', '--port', '0', '--processing-ms', '10'], { cwd: dir });
    const firstLines = (await run.seen('stdout', (out) => out.split('\n').length > 2)).split('\n');
    const [url, keyLine] = firstLines;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(keyLine).toMatch(/^API key: \S+$/);
    const res = await fetch(`${url}/api/v1/data-exports/teams`, {
      headers: { 'X-API-KEY': keyLine!.slice(9) },
    });
    expect(res.status).toBe(200);
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(0);
  });

  it('rcs mock: a bad flag is a usage error', async () => {
    const r = await runCli(['mock', '--fault-rate', '2'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fault-rate must be a number from 0 to 1/);
  });

  it('rcs demo: works with no credentials and no server, scores the sample and exports the nine', {
    timeout: 60_000,
  }, async () => {
    const fresh = tempDir();
    const r = await runCli(['demo'], {
      cwd: fresh,
      env: { RCS_API_KEY: undefined, RCS_BASE_URL: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/DONE {2}score \d+\/100/);
    expect(r.stdout).toMatch(/Asks about budget/);
    expect(r.stdout).toMatch(/Talk time/);
    // In a directory of its own, never ./rcs-export (where `rcs export` writes).
    const files = readdirSync(join(fresh, 'rcs-demo')).sort();
    expect(files).toContain('manifest.json');
    expect(files.filter((f) => f.endsWith('.jsonl'))).toHaveLength(9);
    expect(existsSync(join(fresh, 'rcs-demo', 'real-call-sessions.jsonl'))).toBe(true);
    expect(existsSync(join(fresh, 'rcs-export'))).toBe(false);
  });
});
