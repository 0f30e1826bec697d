import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { difference, equalEverywhere } from '../support/warehouse-diff.js';
import { assertBuilt, CLI, REPO, tempDir } from './helpers.js';

// Each example under examples/ runs against the mock, as CI runs it ("each run in CI").

let server: MockServer;
let key: string;
let bin: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: cwd, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  assertBuilt();
  server = await startMockServer({ port: 0, processingMs: 100 });
  key = server.info.apiKey ?? '';
  // `rcs` on PATH is the built CLI run by the same Node as the tests.
  bin = tempDir('rcs-bin-');
  writeFileSync(join(bin, 'rcs'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'rcs'), 0o755);
  writeFileSync(join(bin, 'node'), `#!/bin/sh\nexec "${process.execPath}" "$@"\n`);
  chmodSync(join(bin, 'node'), 0o755);
});
afterAll(async () => {
  await server?.close();
});

const mockEnv = () => ({ RCS_BASE_URL: server.url, RCS_API_KEY: key });

describe('examples/integration', () => {
  it('uploads the sample call, waits, and prints score, KPIs and items', async () => {
    const cwd = tempDir();
    const r = await sh(
      'node',
      [
        join(REPO, 'examples/integration/upload-and-score.ts'),
        join(REPO, 'examples/integration/sample-call.srt'),
        server.info.repEmails[0]!,
      ],
      mockEnv(),
      cwd,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.score).toBeGreaterThanOrEqual(0);
    expect(out.items.map((i: { name: string }) => i.name)).toContain('Asks about budget');
    expect(out.kpis.listenRatio).toBeGreaterThan(0);
    expect(
      server.api.state.org(server.info.organizations[0]!.id).session(out.sessionId),
    ).toBeDefined();
  });

  it('handles a refused key per error class, exit 1', async () => {
    const r = await sh(
      'node',
      [
        join(REPO, 'examples/integration/upload-and-score.ts'),
        join(REPO, 'examples/integration/sample-call.srt'),
        server.info.repEmails[0]!,
      ],
      { ...mockEnv(), RCS_API_KEY: 'not-a-key-0000' },
      tempDir(),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/API key was refused/);
  });
});

describe('examples/cron (the nightly.sh that rcs init nightly writes)', () => {
  const script = join(REPO, 'examples/cron/nightly.sh');
  const night = (root: string, env: Record<string, string> = {}) =>
    sh(
      'bash',
      [script],
      {
        ...mockEnv(),
        RCS_EXPORT_DIR: join(root, 'export'),
        RCS_WAREHOUSE: join(root, 'w.duckdb'),
        ...env,
      },
      root,
    );

  it('runs the night from any working directory: export with --changes, merged into DuckDB', {
    timeout: 120_000,
  }, async () => {
    const root = tempDir();
    const r = await night(root);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/holds the night's data/);
    // The export's summary line names the run the warehouse now holds (what --ack takes).
    const manifest = JSON.parse(readFileSync(join(root, 'export/manifest.json'), 'utf8'));
    expect(r.stderr).toContain(`(run ${manifest.changes.runId}, for --ack)`);
    equalEverywhere(await difference(join(root, 'w.duckdb'), join(root, 'export')));
  });

  it('refuses to overlap a running night (exit 75), and fails loudly when the export fails', async () => {
    const root = tempDir();
    const lock = join(root, 'w.duckdb.lock');
    // Hold the lock as a running night would.
    const holder = spawn('bash', ['-c', `exec 9>"${lock}"; flock 9; echo held; sleep 30`]);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const overlapped = await night(root);
    holder.kill();
    expect(overlapped.code).toBe(75);
    expect(overlapped.stderr).toMatch(/another run holds/);

    const failed = await night(root, { RCS_API_KEY: 'wrong-key-0000' });
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/failed with exit 4/);
  });
});

describe('examples/github-actions (the rcs-nightly.yml that rcs init nightly writes)', () => {
  it('keeps the export directory and the warehouse in the cache; a night without them starts afresh', {
    timeout: 300_000,
  }, async () => {
    const workflow = parse(
      readFileSync(join(REPO, 'examples/github-actions/rcs-nightly.yml'), 'utf8'),
    );
    expect(workflow.on.schedule[0].cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    const job = workflow.jobs.nightly;
    // Credentials come from repository secrets, never from the file.
    expect(job.env.RCS_API_KEY).toMatch(/^\$\{\{ secrets\.RCS_API_KEY \}\}$/);
    const steps = job.steps as {
      name?: string;
      run?: string;
      uses?: string;
      if?: string;
      with?: Record<string, string>;
    }[];
    const restore = steps.findIndex((s) => s.uses?.startsWith('actions/cache/restore@'));
    const load = steps.findIndex((s) => s.name === 'Export and merge');
    const save = steps.findIndex((s) => s.uses?.startsWith('actions/cache/save@'));
    expect(restore).toBeGreaterThan(-1);
    expect([restore < load, load < save]).toEqual([true, true]);
    const [restored, saved] = [steps[restore]!.with!, steps[save]!.with!];
    // The same paths both ways, a new key each run, and the restore takes the newest of any run.
    expect(saved.path).toBe(restored.path);
    expect(saved.key).toBe(restored.key);
    expect(restored.key).toMatch(/\$\{\{ github\.run_id \}\}/);
    expect(restored.key!.startsWith(restored['restore-keys']!)).toBe(true);
    // Saved after a failed night too (the reload marker of a failed merge must reach the next).
    expect(steps[save]!.if).toMatch(/failure\(\)/);
    // What the cache keeps is what the load step writes, under the job's working directory.
    const cwd = job.defaults.run['working-directory'] as string;
    const [, exportDir, database] = /nightly-load\.mjs (\S+) (\S+)$/.exec(steps[load]!.run!)!;
    expect(restored.path!.trim().split('\n').sort()).toEqual(
      [`${cwd}/${exportDir}`, `${cwd}/${database}`].sort(),
    );

    // The load step as written, in a workspace that holds the recipe (as actions/checkout does).
    const workspace = join(tempDir(), cwd);
    mkdirSync(workspace, { recursive: true });
    symlinkSync(
      join(REPO, 'examples/warehouse/nightly-load.mjs'),
      join(workspace, 'nightly-load.mjs'),
    );
    const run = () => sh('bash', ['-e', '-c', steps[load]!.run!], mockEnv(), workspace);
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/users: reloaded/);
    // The next night, the cache restored: the changes are merged.
    const next = await run();
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/users: \+0 ~0 -0/);
    // The cache evicted, the warehouse kept elsewhere: a fresh start, every table reloaded.
    rmSync(join(workspace, exportDir!), { recursive: true });
    const evicted = await run();
    expect(evicted.code, evicted.stderr).toBe(0);
    expect(evicted.stdout).toMatch(/users: reloaded/);
    equalEverywhere(await difference(join(workspace, database!), join(workspace, exportDir!)));
    // Both gone (a runner with no cache at all): the same.
    rmSync(join(workspace, exportDir!), { recursive: true });
    rmSync(join(workspace, database!));
    const empty = await run();
    expect(empty.code, empty.stderr).toBe(0);
    equalEverywhere(await difference(join(workspace, database!), join(workspace, exportDir!)));
  });
});
