import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  baseEnv,
  readLedger,
  runCli,
  tempDir,
  WITHOUT_FILE_OVERRIDE,
} from './helpers.js';

// What a newcomer meets first, through the built CLI against a real mock over HTTP:
// hints that name what the user did (each with its exact wording), the look-alike check on files
// that are not transcripts, the mock's 404 outside /api/v1, and the demo's sample and next steps.

let server: MockServer;
let dir: string;
let key: string;
let rep: string;

beforeAll(async () => {
  assertBuilt();
  server = await startMockServer({ port: 0, processingMs: 0 });
  key = server.info.apiKey!;
  rep = server.info.repEmails[0]!;
  dir = tempDir('rcs-first-contact-');
});
afterAll(async () => {
  await server?.close();
});

const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, { cwd: dir, env });

/** Writes `name` in the test's directory, returns its path. */
function file(name: string, text: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const ROOT_HINT =
  "is --base-url the API's root? It is the service's origin, such as https://api.example.com";

describe('a 401 names where the key came from', () => {
  const refused = (from: string) =>
    `rcs: export users failed: the credentials were refused (401); check the API key from ${from}`;

  it('--api-key', async () => {
    const r = await run(['export', 'users', '--base-url', server.url, '--api-key', 'wrong-key']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${refused('--api-key')};`);
    expect(r.stderr).not.toContain('RCS_API_KEY');
    expect(r.stderr).not.toContain('wrong-key');
  });

  it('RCS_API_KEY', async () => {
    const r = await run(['export', 'users', '--base-url', server.url], {
      RCS_API_KEY: 'wrong-key',
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${refused('RCS_API_KEY')};`);
  });

  it('--api-key-file FILE', async () => {
    const keyFile = file('key.txt', 'wrong-key\n');
    const r = await run(['export', 'users', '--base-url', server.url, '--api-key-file', keyFile]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${refused(`--api-key-file ${keyFile}`)};`);
  });

  it('the config file: its path and profile, and the command that replaces the key', async () => {
    const home = tempDir('rcs-first-contact-home-');
    const env = { ...baseEnv(home), XDG_CONFIG_HOME: join(home, 'config') };
    const set = await runCli(['config', 'set', 'api-key', '-', '--profile', 'qa'], {
      cwd: home,
      env,
      input: 'wrong-key',
    });
    expect(set.code).toBe(0);
    const r = await runCli(['export', 'users', '--base-url', server.url, '--profile', 'qa'], {
      cwd: home,
      env,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `${refused(`${join(home, 'config', 'rcs', 'config.json')} (profile qa)`)}, or replace it with \`rcs config set api-key - --profile qa\`;`,
    );
  });
});

describe("a 404: is --base-url the API's root?", () => {
  it('a base URL with a path fails against the mock as against the service, for export and upload', async () => {
    const base = `${server.url}/foo`;
    const exported = await run(['export', 'users', '--base-url', base, '--api-key', key]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toContain(
      `rcs: export users failed: not found (404) at /foo/api/v1/data-exports/users: ${ROOT_HINT};`,
    );
    const call = file(
      'labeled.srt',
      `1\n00:00:01,000 --> 00:00:05,000\n${rep}: What budget do you have?\n`,
    );
    const uploaded = await run(
      ['upload', call, '--email', rep, '--base-url', base, '--api-key', key],
      {},
    );
    expect(uploaded.code).toBe(1);
    expect(uploaded.stderr).toContain(
      `not found (404) at /foo/api/v1/real-call-sessions: ${ROOT_HINT}`,
    );
  });

  it('a session that does not exist: the id first, then the base URL', async () => {
    const r = await run([
      'sessions',
      'get',
      '11111111-2222-4333-8444-555555555555',
      '--base-url',
      server.url,
      '--api-key',
      key,
    ]);
    expect(r.code).toBe(1);
    // The line ends with the answer's request id, different on every run.
    expect(r.stderr.trim()).toMatch(
      new RegExp(
        `^${escapeRegExp(`rcs: not found (404): no such session in your organization; check the id. If it is right: ${ROOT_HINT}`)} \\(request id [^)]+\\)$`,
      ),
    );
  });
});

describe('an unreadable file: "unreadable: check permissions", not --no-validate', () => {
  // As root every file is readable, so the CLI then runs as root without the two capabilities
  // that bypass file modes (util-linux's setpriv). Not as another user: the clone may sit in a
  // private directory (mode 0700, as `mktemp -d` makes it) that no other user can reach.
  const asRoot = process.getuid?.() === 0;

  it.each([
    ['check', [] as string[]],
    ['upload', ['--email', 'rep@acme.com', '--ledger', '/dev/null']],
  ])('rcs %s', async (command, flags) => {
    const sub = tempDir('rcs-first-contact-perm-');
    const path = join(sub, 'locked.srt');
    writeFileSync(path, '1\n00:00:01,000 --> 00:00:02,000\nrep@acme.com: hello there\n');
    chmodSync(path, 0o000);
    const r = await runCli([command, path, ...flags], {
      cwd: sub,
      env: { RCS_BASE_URL: server.url, RCS_API_KEY: key },
      ...(asRoot ? { command: WITHOUT_FILE_OVERRIDE } : {}),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: unreadable: check permissions (EACCES)`);
    expect(r.stderr).not.toContain('--no-validate');
  });
});

describe('rcs check without --domains', () => {
  const call = () =>
    file(
      'two-sides.srt',
      `1\n00:00:01,000 --> 00:00:05,000\n${rep}: What budget do you have?\n\n2\n00:00:05,500 --> 00:00:09,000\nsam@buyer.example: About ten thousand.\n`,
    );

  it("hints --domains with the rep's domain when the labels carry two domains", async () => {
    const r = await run(['check', call(), '--email', rep]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `without --domains every e-mail label counts as internal, the buyer's too; pass --domains ${rep.split('@')[1]} to tell the rep's side from the buyer's`,
    );
  });

  it('without --email: names the domains seen; with --domains: no hint', async () => {
    const path = call();
    const r = await run(['check', path, '--json']);
    const report = JSON.parse(r.stdout);
    expect(report.warnings).toContainEqual({
      code: 'domains_unknown',
      message: `without --domains every e-mail label counts as internal, the buyer's too; pass --domains with your organization's domain (the labels have ${rep.split('@')[1]}, buyer.example) to tell the rep's side from the buyer's`,
    });
    const given = await run(['check', path, '--domains', rep.split('@')[1]!]);
    expect(given.stdout).not.toContain('without --domains');
    expect(given.stdout).toMatch(/sam@buyer\.example +external/);
  });
});

describe('export names: "Did you mean …?" as commander says for commands', () => {
  const NINE =
    'real-call-sessions, track-assignments, mission-assignments, sprints, users, tracks, scorecards, missions, teams (or all)';

  it.each([
    ['al', 'all'],
    ['user', 'users'],
    ['mision', 'missions'],
  ])('rcs export %s → Did you mean %s?', async (typed, meant) => {
    const sub = tempDir('rcs-first-contact-export-');
    const r = await runCli(['export', typed, '--base-url', server.url, '--api-key', key], {
      cwd: sub,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `rcs: export: unknown export "${typed}" (Did you mean ${meant}?); the exports are: ${NINE}`,
    );
    expect(existsSync(join(sub, 'rcs-export'))).toBe(false); // refused before anything
  });

  it('a name close to none lists the nine without a guess', async () => {
    const r = await run(['export', 'xyz', '--base-url', server.url, '--api-key', key]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`rcs: export: unknown export "xyz"; the exports are: ${NINE}`);
  });
});

describe('"This does not look like a transcript": check and upload', () => {
  const inputs: [string, string | Uint8Array, string][] = [
    [
      'people.csv',
      'id,name,email\n1,Ana,ana@acme.com\n2,Ben,ben@client.example\n',
      'people.csv:1: This does not look like a transcript: a header row (id,name,email) and 2 rows of 3 comma-separated fields: a spreadsheet or CSV export.',
    ],
    [
      'data.json',
      '{"foo":1}\n',
      'data.json:1: This does not look like a transcript: it is a JSON object.',
    ],
    [
      'page.html',
      '<!DOCTYPE html>\n<html><head><title>Call</title></head><body>Hi</body></html>\n',
      'page.html:1: This does not look like a transcript: it is an HTML page.',
    ],
    // A PNG that went through a lossy text conversion: valid UTF-8 (so not refused as binary
    // bytes when read), but replacement and C1 control characters through and through.
    [
      'image.txt',
      `\uFFFDPNG\n${'\uFFFD\uFFFDx\uFFFD\u0085y'.repeat(30)}\n`,
      'image.txt:1: This does not look like a transcript: 65% of its characters are control characters or undecodable bytes: a binary file, or text in another encoding.',
    ],
  ];

  it.each(inputs)(
    'rcs check %s: a warning with its reason and line, exit 0; --strict: exit 2',
    async (name, text, line) => {
      const path = file(name, text);
      const r = await run(['check', name]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Warnings:\n  ${line}`);
      expect(r.stdout).toContain(
        'OK: the upload would pass pre-validation, but the file does not look like a transcript (--strict refuses it).',
      );
      const strict = await run(['check', name, '--strict', '--json']);
      expect(strict.code).toBe(2);
      expect(JSON.parse(strict.stdout).problems).toContainEqual(
        expect.objectContaining({ code: 'not_a_transcript', line: Number(line.split(':')[1]) }),
      );
      expect(path).toContain(name);
    },
  );

  it.each(inputs)(
    'rcs upload %s: warned and sent by default; --strict sends nothing (exit 2)',
    async (name, text, line) => {
      file(name, text);
      const ledger = join(dir, `${name}.ledger.jsonl`);
      const env = { RCS_BASE_URL: server.url, RCS_API_KEY: key };
      const before = server.api.state.counts().createdSessions;
      const strict = await run(
        ['upload', name, '--email', rep, '--strict', '--ledger', ledger],
        env,
      );
      expect(strict.code).toBe(2);
      expect(strict.stderr).toContain(`rcs: ${line}`);
      expect(server.api.state.counts().createdSessions).toBe(before);
      const sent = await run(['upload', name, '--email', rep, '--ledger', ledger], env);
      expect(sent.code).toBe(0);
      expect(sent.stderr).toContain(
        `rcs: warning: ${line} Uploading it anyway; --strict refuses such files`,
      );
      expect(readLedger(ledger).at(-1)).toMatchObject({ status: 'created' });
    },
  );

  it('a transcript gets no such warning', async () => {
    const path = file(
      'fine.srt',
      `1\n00:00:01,000 --> 00:00:05,000\n${rep}: What budget do you have?\n`,
    );
    const r = await run(['check', path, '--email', rep, '--strict']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('does not look like a transcript');
  });
});

describe('rcs demo: the sample as a file, and next steps off a terminal', () => {
  it('--write-sample writes a call that check passes, and never replaces a file', async () => {
    const sub = tempDir('rcs-first-contact-demo-');
    const w = await runCli(['demo', '--write-sample', 'call.srt'], { cwd: sub });
    expect(w.code).toBe(0);
    expect(w.stderr).toBe(`Wrote call.srt: a sample call whose rep is ${rep}\n`);
    const check = await runCli(
      ['check', 'call.srt', '--email', rep, '--domains', rep.split('@')[1]!, '--strict'],
      { cwd: sub },
    );
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`Rep ${rep} speaks: yes`);
    writeFileSync(join(sub, 'mine.srt'), 'keep me');
    const again = await runCli(['demo', '--write-sample', 'mine.srt'], { cwd: sub });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      'rcs: --write-sample: mine.srt exists; it is left as it is (name another file)\n',
    );
    expect(readFileSync(join(sub, 'mine.srt'), 'utf8')).toBe('keep me');
  });

  it('prints the next steps on stderr without a terminal, as `npx rcs`, with the rep by email', async () => {
    const sub = tempDir('rcs-first-contact-demo-');
    mkdirSync(join(sub, 'bin'));
    const r = await runCli(['demo'], { cwd: sub, env: { PATH: join(sub, 'bin') } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`rep: ${rep}`);
    expect(r.stderr).toContain(`Next (this demo's mock at http://127.0.0.1:`);
    for (const step of [
      '  npx rcs demo --write-sample call.srt',
      `  npx rcs check call.srt --email ${rep} --domains ${rep.split('@')[1]}`,
      '  npx rcs mock --port 4010',
      `  export RCS_BASE_URL=http://127.0.0.1:4010 RCS_API_KEY=${key}`,
      `  npx rcs upload call.srt --email ${rep} --wait`,
      '  npx rcs export users --format csv',
    ]) {
      expect(r.stderr).toContain(step);
    }
    expect(r.stderr).not.toMatch(/^ {2}rcs /m);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
