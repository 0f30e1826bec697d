import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  cliLine,
  FIXTURES,
  labeledCall,
  runCli,
  runCommand,
  sessionsWith,
  tempDir,
} from './helpers.js';

// What a new user met with real meeting-tool files, driven as they drove it: `check` on a file
// with an almost-right timing line, role labels, a batch with one file too long, a Hebrew label
// with an invisible right-to-left mark, Teams' escaped angle brackets, and a NUL byte.

let server: MockServer;
let rep = '';
let key = '';
let dir: string;

beforeAll(async () => {
  assertBuilt();
  server = await startMockServer({ port: 0, processingMs: 50 });
  key = server.info.apiKey ?? '';
  rep = server.info.repEmails[0] ?? '';
  dir = tempDir();
});
afterAll(() => server?.close());

const env = () => ({ RCS_BASE_URL: server.url, RCS_API_KEY: key });
const rcs = (args: string[]) => runCli(args, { cwd: dir, env: env() });
const created = () => server.api.state.counts().createdSessions;
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function file(name: string, text: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('rcs check shows what it found', () => {
  const precision = join(FIXTURES, 'synthetic/timestamp-precision-variants.srt');

  it('every diagnostic with its line, in file order; the full-width colon is its own cue, refused', async () => {
    const r = await rcs(['check', precision]);
    expect(r.code).toBe(2);
    // Cue 7's timing line has a full-width colon: a cue of its own, not text of cue 6.
    expect(r.stdout).toMatch(/: srt, 7 cues/);
    expect(r.stdout).not.toMatch(/follows a blank line but no timing line/);
    const warnings = r.stdout.split('Warnings:\n')[1]?.split('\n\n')[0] ?? '';
    const lines = [...warnings.matchAll(/timestamp-precision-variants\.srt:(\d+): /g)].map((m) =>
      Number(m[1]),
    );
    expect(lines).toEqual([6, 14, 18, 22]);
    expect(warnings).toMatch(/:6: Timing line 6 was read leniently/);
    expect(r.stdout).toMatch(
      /Problems \(the upload would be rejected\):\n {2}\S+timestamp-precision-variants\.srt:26: Line 26 looks like a cue timing line but is not one: it has the character "：" \(U\+FF1A\)/,
    );
    expect(r.stderr).toMatch(/1 problem would make the upload fail/);
  });

  it('--json: the malformed timing is a problem with its code and line', async () => {
    const report = JSON.parse((await rcs(['check', precision, '--json'])).stdout);
    expect(report.ok).toBe(false);
    expect(report.cueCount).toBe(7);
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'malformed_timing', line: 26, field: 'transcript' }),
    ]);
  });

  it('upload refuses it offline, naming the line; --no-validate sends it', async () => {
    const before = created();
    const refused = await rcs(['upload', precision, '--email', rep]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/timestamp-precision-variants\.srt:26: Line 26 looks like/);
    expect(created()).toBe(before);
    const sent = await rcs(['upload', precision, '--email', rep, '--no-validate']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(created()).toBe(before + 1);
  });
});

const ROLES = [
  '1',
  '00:00:01,000 --> 00:00:04,000',
  'Agent: Thanks for joining, what budget do you have this year?',
  '',
  '2',
  '00:00:04,500 --> 00:00:08,000',
  'Client: Around twenty thousand, the decision is next week.',
  '',
].join('\n');

describe('role labels get a hint', () => {
  it('check --email suggests --speaker with the rep e-mail, and the suggestion works', async () => {
    const path = file('roles.srt', ROLES);
    const r = await rcs(['check', path, '--email', 'ana@acme.com']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Warnings:\n {2}\S*roles\.srt:3: the speaker labels "Agent", "Client" look like roles, not e-mails: .* --speaker "Agent=ana@acme\.com" --speaker "Client=<their e-mail>"/,
    );
    const json = JSON.parse(
      (await rcs(['check', path, '--email', 'ana@acme.com', '--json'])).stdout,
    );
    expect(json.warnings).toContainEqual(expect.objectContaining({ code: 'role_labels', line: 3 }));
    const fixed = await rcs([
      'check',
      path,
      '--email',
      'ana@acme.com',
      '--speaker',
      'Agent=ana@acme.com',
      '--speaker',
      'Client=buyer@client.example',
    ]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/Rep ana@acme\.com speaks: yes/);
    expect(fixed.stdout).not.toMatch(/look like roles/);
  });

  it.each([
    ['Rep', 'Customer'],
    ['SALES', 'Buyer'],
    ['Speaker 1', 'Speaker 2'],
  ])('%s / %s: the hint names the first label for the rep', async (a, b) => {
    const path = file('roles2.srt', ROLES.replace('Agent:', `${a}:`).replace('Client:', `${b}:`));
    const r = await rcs(['check', path, '--email', 'ana@acme.com']);
    expect(r.stdout).toContain(`--speaker "${a}=ana@acme.com"`);
  });

  // Off a terminal upload's warnings are shown by the warnings channel; on a terminal (a pty
  // from `script`) the hint shows today.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)('upload --email on a terminal shows the same hint', async () => {
    const path = file('roles-up.srt', ROLES.replace('this year', 'this quarter'));
    const command = cliLine(['upload', path, '--email', rep]);
    const r = await runCommand('script', ['-qec', command, '/dev/null'], { cwd: dir, env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`--speaker "Agent=${rep}"`);
  });
});

describe('a batch keeps going past a file that fails pre-validation', () => {
  it('the others are uploaded, the failed file is reported with its line, exit 3', async () => {
    const batch = join(dir, 'batch');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(batch);
    writeFileSync(join(batch, 'a.srt'), labeledCall(rep, 1001));
    writeFileSync(join(batch, 'b.srt'), labeledCall(rep, 1002));
    // A two-hour call, over the service's 100,000 characters.
    let long = '';
    for (let i = 0; long.length < 316_000; i++) {
      const t = (ms: number) => new Date(ms).toISOString().slice(11, 23).replace('.', ',');
      long += `${i + 1}\n${t(i * 6500)} --> ${t(i * 6500 + 6000)}\n${rep}: ${'we talked about the budget '.repeat(10)}\n\n`;
    }
    writeFileSync(join(batch, 'long.srt'), long);
    const before = created();
    const r = await rcs(['upload', 'batch', '--email', rep]);
    expect(r.code).toBe(3);
    expect(created()).toBe(before + 2);
    expect(r.stdout.match(/^created /gm)).toHaveLength(2);
    expect(r.stderr).toMatch(
      /long\.srt: transcript is too long: 316,\d{3} characters for a call of \d h \d\d min, and the service takes at most 100,000\. To score it, split the call into 4 parts of about \d\d min each and upload each, or upload a shorter excerpt\. \(not uploaded, the rest of the batch goes on\)/,
    );
    expect(r.stderr).not.toMatch(/D17|UTF-16/);
    expect(r.stderr).toMatch(/1 of 3 uploads failed/);

    // --json: a "failed" line with its problems; a re-run skips what is done, still exit 3.
    const again = await rcs(['upload', 'batch', '--email', rep, '--json']);
    expect(again.code).toBe(3);
    const lines = jsonLines(again.stdout);
    expect(lines.find((l) => l.status === 'failed')).toMatchObject({
      file: join('batch', 'long.srt'),
      error: {
        code: 'prevalidation_failed',
        problems: [expect.objectContaining({ field: 'transcript', code: 'validation_failed' })],
      },
    });
    expect(lines.filter((l) => l.status === 'skipped')).toHaveLength(2);
    expect(created()).toBe(before + 2);
  });

  it('a single file that fails is still exit 2 with nothing sent', async () => {
    const before = created();
    const r = await rcs(['upload', join('batch', 'long.srt'), '--email', rep]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing was uploaded/);
    expect(created()).toBe(before);
  });
});

describe('smaller things with transcripts', () => {
  it('a Hebrew label with an invisible right-to-left mark matches --speaker "לקוח=…"', async () => {
    const path = file(
      'he.srt',
      '1\n00:00:01,000 --> 00:00:04,000\n\u200fלקוח: שלום, מה שלומך?\n\n2\n00:00:04,500 --> 00:00:08,000\nAna: Hello, the budget is ten thousand.\n',
    );
    const mapped = await rcs([
      'check',
      path,
      '--email',
      'ana@acme.com',
      '--speaker',
      'לקוח=buyer@client.example',
      '--speaker',
      'Ana=ana@acme.com',
    ]);
    expect(mapped.code, mapped.stdout).toBe(0);
    expect(mapped.stdout).toMatch(/Rep ana@acme\.com speaks: yes/);
    // Shown without the mark, in the speaker table and the removed labels too.
    const bare = await rcs(['check', path]);
    expect(bare.stdout).toMatch(/^לקוח +removed/m);
    expect(bare.stdout).toContain('"לקוח" (line 3)');
    expect(bare.stdout).not.toContain('\\u200f');
    const unmapped = await rcs(['check', path, '--speaker', 'Ana=ana@acme.com']);
    expect(unmapped.code).toBe(2);
    expect(unmapped.stdout).toContain('Speaker "לקוח" (1 cue');
    expect(unmapped.stdout).not.toMatch(/\\u200f|\u200f/);
  });

  it("Teams' &lt;Thursday&gt; stays a word: talk speed counts it like the plain word", async () => {
    const vtt = (words: string) =>
      `WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz>Let us meet ${words} at ten.</v>\n\n00:00:04.500 --> 00:00:06.000\n<v Ben Okafor>Fine by me.</v>\n`;
    const speed = async (name: string, words: string) => {
      const path = file(name, vtt(words));
      const r = await rcs([
        'check',
        path,
        '--speaker',
        'Ana Ruiz=ana@acme.com',
        '--speaker',
        'Ben Okafor=ben@client.example',
        '--email',
        'ana@acme.com',
        '--json',
      ]);
      expect(r.code, r.stdout).toBe(0);
      return JSON.parse(r.stdout).kpis.talkSpeed;
    };
    expect(await speed('teams-escaped.vtt', '&lt;Thursday&gt;')).toBe(
      await speed('teams-plain.vtt', 'Thursday'),
    );
  });

  it('a NUL byte: refused by default, sent with --no-validate (the service judges)', async () => {
    const text = labeledCall(rep, 2001).replace('budget', 'bud\u0000get');
    const path = file('nul.srt', text);
    const refused = await rcs(['upload', path, '--email', rep]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not text \(it contains NUL/);
    const before = created();
    const sent = await rcs(['upload', path, '--email', rep, '--no-validate', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(jsonLines(sent.stdout)[0]).toMatchObject({ status: 'created' });
    expect(created()).toBe(before + 1);
    expect(await sessionsWith({ url: server.url, apiKey: key }, [text])).toEqual([1]);
  });
});
