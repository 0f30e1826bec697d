/**
 * Where a user looks (the demo's directory, cron logs, usage errors, `sessions get`), driven as
 * the user did: the built `rcs` spawned as a process, its stdout and stderr pipes (never a TTY:
 * exactly a cron job's), against real `rcs mock` processes.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshot } from '../../../../test/support/files.js';
import {
  assertBuilt,
  FIXTURES,
  labeledCall,
  type MockProcess,
  runCli,
  startMock,
  tempDir,
} from './helpers.js';

let a: MockProcess;
let b: MockProcess;
beforeAll(async () => {
  assertBuilt();
  // Two services: the same demo data on two ports is two base URLs, as two real services are.
  [a, b] = await Promise.all([startMock(['--processing-ms', '50']), startMock()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

let cwd: string;
beforeEach(() => {
  cwd = tempDir('rcs-where-');
});

interface ManifestLike {
  service?: string;
  demo: boolean;
  resources: { resource: string; count: number; changes?: { inserts: number } }[];
  changes?: { runId: string };
  summary: { requests: number; rateLimited: number; rateLimitWaitMs: number };
}

const manifestOf = (dir: string): ManifestLike =>
  JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ManifestLike;

/** `--verbose` logs each request as `[rcs] GET …`: none means the run sent nothing. */
const requestsIn = (stderr: string) => stderr.split('\n').filter((l) => /^\[rcs\] GET /.test(l));

describe('one export directory, one service', () => {
  it('rcs export all, then rcs demo in the same directory: ./rcs-export is untouched, the demo writes ./rcs-demo, and each manifest names its service', {
    timeout: 90_000,
  }, async () => {
    const exported = await runCli(['export', 'all'], { cwd, env: a.env });
    expect(exported.code, exported.stderr).toBe(0);
    const real = join(cwd, 'rcs-export');
    const before = await snapshot(real);
    expect(manifestOf(real)).toMatchObject({ service: a.url, demo: false });

    const demo = await runCli(['demo'], { cwd, env: { RCS_BASE_URL: undefined } });
    expect(demo.code, demo.stderr).toBe(0);
    expect(await snapshot(real)).toEqual(before);
    const demoManifest = manifestOf(join(cwd, 'rcs-demo'));
    expect(demoManifest.demo).toBe(true);
    // The demo's own mock, on a port of the moment: origin only, nothing else.
    expect(demoManifest.service).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.stderr).toMatch(/The nine exports are in \.\/rcs-demo \(with manifest\.json\)/);

    // A second demo replaces the first one's data: demo data is demo data, whatever the port.
    const again = await runCli(['demo'], { cwd, env: { RCS_BASE_URL: undefined } });
    expect(again.code, again.stderr).toBe(0);
  });

  it('rcs demo --out DIR writes there only', { timeout: 60_000 }, async () => {
    const r = await runCli(['demo', '--out', 'mine'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(manifestOf(join(cwd, 'mine')).demo).toBe(true);
    expect((await readdir(cwd)).filter((n) => n.startsWith('rcs-'))).toEqual([]);
  });

  it("rcs export into another service's directory: exit 2 naming both services, before any request, nothing replaced; --force replaces it", {
    timeout: 60_000,
  }, async () => {
    const first = await runCli(['export', 'teams', 'users', '--out', 'out'], {
      cwd,
      env: a.env,
    });
    expect(first.code, first.stderr).toBe(0);
    const out = join(cwd, 'out');
    const before = await snapshot(out);

    const other = await runCli(['--verbose', 'export', 'teams', '--out', 'out'], {
      cwd,
      env: b.env,
    });
    expect(other.code).toBe(2);
    expect(requestsIn(other.stderr)).toEqual([]);
    const line = other.stderr.split('\n').find((l) => l.startsWith('rcs: '));
    expect(line).toContain(`an export of ${a.url}`);
    expect(line).toContain(`not an export of ${b.url}`);
    expect(line).toMatch(/--force/);
    expect(await snapshot(out)).toEqual(before);

    const forced = await runCli(['export', 'teams', '--out', 'out', '--force'], {
      cwd,
      env: b.env,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(manifestOf(out)).toMatchObject({ service: b.url, demo: false });
    // The same service again needs no --force.
    const same = await runCli(['export', 'teams', '--out', 'out'], { cwd, env: b.env });
    expect(same.code, same.stderr).toBe(0);
  });

  it("rcs export into the demo's directory is refused the same way, and the demo never writes over a real export", {
    timeout: 60_000,
  }, async () => {
    const demo = await runCli(['demo'], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    const into = await runCli(['export', 'teams', '--out', 'rcs-demo'], { cwd, env: a.env });
    expect(into.code).toBe(2);
    expect(into.stderr).toContain("--out rcs-demo holds the demo's data (rcs demo)");
    expect(into.stderr).toContain(`not an export of ${a.url}`);

    const real = await runCli(['export', 'teams', '--out', 'real'], { cwd, env: a.env });
    expect(real.code, real.stderr).toBe(0);
    const before = await snapshot(join(cwd, 'real'));
    const over = await runCli(['demo', '--out', 'real'], { cwd });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(`--out real holds an export of ${a.url}`);
    expect(over.stderr).toContain('the demo writes into a directory of its own');
    expect(await snapshot(join(cwd, 'real'))).toEqual(before);
  });
});

describe('what matters reaches cron (stdout and stderr are pipes here)', () => {
  it('rcs upload of a meeting-tool file with lines left out and estimated timings: each warning one plain line on stderr, and in the --json line', {
    timeout: 30_000,
  }, async () => {
    const file = 'google-meet-transcript.txt';
    await writeFile(join(cwd, file), readFileSync(join(FIXTURES, 'synthetic/meeting', file)));
    const rep = a.repEmails[0]!;
    const r = await runCli(
      [
        'upload',
        file,
        '--email',
        rep,
        '--speaker',
        `Ana Ruiz=${rep}`,
        '--speaker',
        'Ben Okafor=ben@client.example',
        '--json',
      ],
      { cwd, env: a.env },
    );
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('rcs: warning: '));
    // The title, "Attendees", the attendee list, the tool's notice and the closing line.
    const leftOut = warnings.filter((l) => /is left out/.test(l));
    expect(
      leftOut.map((l) => /^rcs: warning: google-meet-transcript\.txt:(\d+): /.exec(l)?.[1]),
    ).toEqual(['1', '2', '3', '4', '10']);
    for (const l of leftOut) expect(l).toMatch(/If it is speech, give it a speaker label/);
    const estimated = warnings.filter((l) => /estimated/.test(l));
    expect(estimated).toHaveLength(1);
    expect(estimated[0]).toMatch(
      /^rcs: warning: google-meet-transcript\.txt: .*export the transcript with its timestamps/,
    );
    // Every line is plain: no colour, no carriage return, no progress frame.
    expect(r.stderr).not.toMatch(/\x1b|\r/);

    const record = JSON.parse(r.stdout.trim()) as {
      status: string;
      warnings: { code: string; line?: number; message: string }[];
    };
    expect(record.status).toBe('created');
    expect(record.warnings.filter((w) => w.code === 'skipped_line').map((w) => w.line)).toEqual([
      1, 2, 3, 4, 10,
    ]);
    const timing = record.warnings.find((w) => w.code === 'timing_estimated');
    expect(timing).toBeDefined();
    expect(timing).not.toHaveProperty('line');
    expect(record.warnings).toHaveLength(warnings.length);
  });

  it('a finished rcs export prints one summary line on stderr: exports, records, changes and the run id --ack takes, directory, time; nothing with --quiet', {
    timeout: 60_000,
  }, async () => {
    const r = await runCli(['export', 'all', '--out', 'nightly', '--changes'], {
      cwd,
      env: a.env,
    });
    expect(r.code, r.stderr).toBe(0);
    const manifest = manifestOf(join(cwd, 'nightly'));
    const records = manifest.resources.reduce((n, e) => n + e.count, 0);
    const inserts = manifest.resources.reduce((n, e) => n + (e.changes?.inserts ?? 0), 0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^rcs export: 9 exports, ${records.toLocaleString('en-US')} records, changes \\+${inserts.toLocaleString('en-US')} ~0 -0 \\(run ${manifest.changes!.runId}, for --ack\\), written to nightly \\(manifest\\.json\\) in \\d+\\.\\d s$`,
      ),
    );

    const one = await runCli(['export', 'teams', '--out', 'one'], { cwd, env: a.env });
    expect(one.stderr).toMatch(
      /^rcs export: teams, \d+ records, written to one \(manifest\.json\) in \d+\.\d s\n$/,
    );

    const quiet = await runCli(['--quiet', 'export', 'teams', '--out', 'one'], {
      cwd,
      env: a.env,
    });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });
});

describe('the smaller things', () => {
  it.each([
    [['export'], 'rcs export --help'],
    [['demo', 'extra'], 'rcs demo --help'],
    [['sessions', 'get'], 'rcs sessions get --help'],
    [['uplod'], 'rcs --help'],
  ])('rcs %j: the usage error points at %s', async (args, help) => {
    const r = await runCli(args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`\\(see ${help.replaceAll(' ', ' ')}\\)\\n$`));
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('rateLimitWaitMs is 0 in the manifest of a service without a rate limit (rateLimited 0)', {
    timeout: 60_000,
  }, async () => {
    for (const out of ['r1', 'r2']) {
      const r = await runCli(['export', 'all', '--out', out], { cwd, env: a.env });
      expect(r.code, r.stderr).toBe(0);
      const { summary } = manifestOf(join(cwd, out));
      expect(summary.requests).toBeGreaterThan(9);
      expect(summary.rateLimited).toBe(0);
      expect(summary.rateLimitWaitMs).toBe(0);
    }
  });

  it('rcs sessions get shows the rep by email, as upload --wait does', {
    timeout: 60_000,
  }, async () => {
    const rep = a.repEmails[1]!;
    await mkdir(join(cwd, 'calls'));
    await writeFile(join(cwd, 'calls', 'call.srt'), labeledCall(rep, 1));
    const up = await runCli(['upload', 'calls/call.srt', '--email', rep, '--wait', '--json'], {
      cwd,
      env: a.env,
    });
    expect(up.code, up.stderr).toBe(0);
    const { sessionId } = JSON.parse(up.stdout.trim()) as { sessionId: string };
    const shown = await runCli(['upload', 'calls/call.srt', '--email', rep, '--wait', '--force'], {
      cwd,
      env: a.env,
    });
    expect(shown.stdout).toContain(`rep: ${rep}`);

    const get = await runCli(['sessions', 'get', sessionId], { cwd, env: a.env });
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain(`rep: ${rep}`);
    expect(get.stdout).not.toMatch(/rep: [0-9a-f]{8}-/);
    // --json stays the session as the API returns it.
    const json = await runCli(['--json', 'sessions', 'get', sessionId], { cwd, env: a.env });
    expect(JSON.parse(json.stdout)).not.toHaveProperty('repEmail');
  });
});
