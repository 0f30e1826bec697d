import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, FIXTURES, runCli, tempDir } from './helpers.js';

// `rcs check` on the shared transcript fixtures: offline, no credentials, exit 0 when the upload
// would pass and 2 when not, a report a person can read or --json a script can.

let cwd: string;
beforeAll(() => {
  assertBuilt();
  cwd = tempDir();
});

const check = (args: string[]) => runCli(['check', ...args], { cwd });
const fx = (p: string) => join(FIXTURES, p);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return /\.(srt|vtt|txt|json)$/.test(name) && name !== 'EXPECTED.json' ? [p] : [];
  });
}

describe('rcs check', () => {
  it('a speaker-labeled SRT: speakers with their classification, rep speaks, KPI preview, timeline', async () => {
    const r = await check([
      fx('synthetic/speaker-labels-email.srt'),
      '--email',
      'alice.smith@example.com',
      '--domains',
      'example.com',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/labeled-srt, 4 cues/);
    expect(r.stdout).toMatch(/alice\.smith@example\.com +internal +2/);
    // D13: with domains configured, another domain is external.
    expect(r.stdout).toMatch(/bob\+sales@example\.co\.uk +external/);
    expect(r.stdout).toMatch(/Rep alice\.smith@example\.com speaks: yes/);
    expect(r.stdout).toMatch(/KPI preview: listen ratio \d/);
    expect(r.stdout).toMatch(/Talk time\nalice\.smith@example\.com \(rep\) +[█▓·]+ +\d+%/);
    expect(r.stdout).toMatch(/OK: the upload would pass/);
    expect(r.stderr).toBe('');
  });

  it('exit 2 when the rep never speaks (rule 8), with the problem and one line on stderr', async () => {
    const r = await check([fx('synthetic/speaker-labels-email.srt'), '--email', 'rep@acme.com']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/Rep rep@acme\.com speaks: no/);
    expect(r.stdout).toMatch(/never speaks in it/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('lists non-email labels that will be removed, with their lines (rule 6)', async () => {
    const r = await check([fx('synthetic/speaker-labels-names-roles.srt'), '--json']);
    const report = JSON.parse(r.stdout);
    expect(report.removedLabels).toContainEqual({ label: 'client', line: 3 });
    expect(report.speakers.find((s: { label: string }) => s.label === 'agent')).toMatchObject({
      kind: 'removed',
    });
  });

  it.each([
    ['synthetic/invalid-utf8-bytes.srt', /UTF-8/],
    ['synthetic/windows-1252-encoding.srt', /UTF-8/],
    ['synthetic/empty.srt', /too short/],
    ['synthetic/whitespace-only.srt', /too short/],
  ])('%s is refused with a clear reason (exit 2)', async (file, reason) => {
    const r = await check([fx(file), '--json']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report.problems)).toMatch(reason);
  });

  it('D25: --user-id takes any UUID the mock takes (version 0 here), and refuses a malformed one', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(cwd, 'plain.txt');
    writeFileSync(file, 'We talked about the budget, the timeline and who signs the contract.');
    const ok = await check([file, '--user-id', '3f2a9c1e-5b7d-0e8f-8a1b-0c2d3e4f5a6b']);
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await check([file, '--user-id', '3f2a9c1e5b7d-0e8f-8a1b-0c2d3e4f5a6b']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--user-id/);
  });

  it("--json keeps the rule book's code, status, field and line of each problem", async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(cwd, 'rep-silent.srt');
    writeFileSync(
      file,
      '1\n00:00:01,000 --> 00:00:04,000\nbuyer@client.example: We have a budget of ten thousand.\n',
    );
    const silent = JSON.parse((await check([file, '--email', 'rep@acme.com', '--json'])).stdout);
    expect(silent.problems).toEqual([
      expect.objectContaining({ code: 'rep_not_in_transcript', status: 422, field: 'transcript' }),
    ]);
    const zoom = JSON.parse(
      (await check([fx('synthetic/meeting/zoom-cloud-transcript.vtt'), '--json'])).stdout,
    );
    expect(zoom.problems[0]).toMatchObject({ code: 'unmapped_speaker', line: expect.any(Number) });
    const bytes = JSON.parse(
      (await check([fx('synthetic/invalid-utf8-bytes.srt'), '--json'])).stdout,
    );
    expect(bytes.problems[0]).toMatchObject({ code: expect.any(String), line: expect.any(Number) });
  });

  it('a Zoom VTT: unmapped speakers are reported, not guessed; with --speaker it converts', async () => {
    const vtt = fx('synthetic/meeting/zoom-cloud-transcript.vtt');
    const bare = await check([vtt]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toMatch(/Speaker "Ana Ruiz".*has no e-mail in the speaker map/);
    const mapped = await check([
      vtt,
      '--speaker',
      'Ana Ruiz=ana@acme.com',
      '--speaker',
      'Ben Okafor=ben@client.example',
      '--email',
      'ana@acme.com',
      '--domains',
      'acme.com',
      '--json',
    ]);
    expect(mapped.code).toBe(0);
    const report = JSON.parse(mapped.stdout);
    expect(report).toMatchObject({
      ok: true,
      converted: true,
      source: 'zoom-vtt',
      format: 'labeled-srt',
      repSpeaks: true,
    });
    const kinds = report.speakers.map((s: { label: string; kind: string }) => [s.label, s.kind]);
    expect(kinds).toContainEqual(['ana@acme.com', 'internal']);
    expect(kinds).toContainEqual(['ben@client.example', 'external']);
    // A display name that is itself an e-mail maps to itself (the file has one).
    expect(kinds).toContainEqual(['ben.okafor@example.com', 'external']);
  });

  it('bad flags are usage errors (exit 2)', async () => {
    const r = await check([fx('synthetic/speaker-labels-email.srt'), '--domains', 'not a domain']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--domains: "not a domain" is not a domain name/);
  });

  it('a 3.9 MB SRT of 44,000 cues: the whole report and exit 2 (too long), no stack overflow; at 16 MB refused unread', {
    timeout: 120_000,
  }, async () => {
    const clock = (ms: number) =>
      `${String(Math.floor(ms / 3_600_000)).padStart(2, '0')}:${String(Math.floor(ms / 60_000) % 60).padStart(2, '0')}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')},${String(ms % 1000).padStart(3, '0')}`;
    const cues: string[] = [];
    for (let i = 0; i < 185_000; i++) {
      const who = i % 2 === 0 ? 'rep@acme.com' : 'buyer@client.example';
      cues.push(
        `${i + 1}\n${clock(i * 2000)} --> ${clock(i * 2000 + 1500)}\n${who}: cue ${i}, all fine so far, yes\n`,
      );
    }
    const file = join(cwd, 'long-call.srt');
    writeFileSync(file, cues.slice(0, 44_000).join('\n'));
    expect(statSync(file).size).toBeGreaterThan(3_800_000);
    const r = await check([file, '--email', 'rep@acme.com']);
    expect(r.stderr).not.toMatch(/call stack/);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toMatch(/labeled-srt, 44000 cues/);
    expect(r.stdout).toMatch(/Rep rep@acme\.com speaks: yes/);
    expect(r.stdout).toMatch(/Talk time\nrep@acme\.com \(rep\) +█+ +50%\n/);
    expect(r.stdout).toMatch(
      /transcript is too long: [\d,]+ characters for a call of .*, and the service takes at most 100,000/,
    );
    // Past 4,000,000 bytes no transcript the service takes fits: refused before it is read.
    writeFileSync(file, cues.join('\n'));
    expect(statSync(file).size).toBeGreaterThan(16_000_000);
    const big = await check([file, '--email', 'rep@acme.com']);
    expect(big.code, big.stderr).toBe(2);
    expect(big.stderr).toContain(
      `${file}: larger than 4,000,000 bytes, refused without reading it`,
    );
  });

  it('every shared fixture: exit 0 or 2, a JSON report, never a crash', {
    timeout: 120_000,
  }, async () => {
    const files = walk(FIXTURES);
    expect(files.length).toBeGreaterThan(80);
    const outcomes: Record<string, number> = {};
    for (const file of files) {
      const r = await check([file, '--json']);
      const name = relative(FIXTURES, file);
      expect([0, 2], `${name}: exit ${r.code}\n${r.stderr}`).toContain(r.code);
      expect(r.stderr, name).not.toMatch(/\n\s+at /); // no stack trace
      const report = JSON.parse(r.stdout);
      expect(report.ok, name).toBe(r.code === 0);
      if (r.code === 2) expect(report.problems.length, name).toBeGreaterThan(0);
      outcomes[name] = r.code ?? -1;
    }
    // Sanity: the clean labeled file passes and a binary-ish one does not.
    expect(outcomes['synthetic/speaker-labels-email.srt']).toBe(0);
    expect(outcomes['synthetic/invalid-utf8-bytes.srt']).toBe(2);
  });
});
