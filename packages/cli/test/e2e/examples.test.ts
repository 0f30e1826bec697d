import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
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

describe('examples/cron', () => {
  const script = join(REPO, 'examples/cron/nightly-export.sh');

  it('exports all nine to a dated directory', async () => {
    const root = tempDir();
    const r = await sh(
      'bash',
      [script],
      { ...mockEnv(), RCS_EXPORT_ROOT: root, RCS_EXPORT_LOCK: join(root, 'lock') },
      root,
    );
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const files = readdirSync(join(root, day));
    expect(files.filter((f) => f.endsWith('.jsonl'))).toHaveLength(9);
    expect(files).toContain('manifest.json');
    expect(r.stdout).toMatch(/wrote .*\d{4}-\d{2}-\d{2}/);
  });

  it('refuses to overlap a running export (exit 75), and fails loudly when the export fails', async () => {
    const root = tempDir();
    const lock = join(root, 'lock');
    // Hold the lock as a running export would.
    const holder = spawn('bash', ['-c', `exec 9>"${lock}"; flock 9; echo held; sleep 30`]);
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const overlapped = await sh(
      'bash',
      [script],
      { ...mockEnv(), RCS_EXPORT_ROOT: root, RCS_EXPORT_LOCK: lock },
      root,
    );
    holder.kill();
    expect(overlapped.code).toBe(75);
    expect(overlapped.stderr).toMatch(/another run holds/);

    const failed = await sh(
      'bash',
      [script],
      {
        ...mockEnv(),
        RCS_API_KEY: 'wrong-key-0000',
        RCS_EXPORT_ROOT: root,
        RCS_EXPORT_LOCK: join(root, 'lock2'),
      },
      root,
    );
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/failed with exit 4/);
  });
});

describe('examples/github-actions', () => {
  it('the workflow is scheduled, and its export step run as written fills the artifact path', async () => {
    const workflow = parse(
      readFileSync(join(REPO, 'examples/github-actions/nightly-export.yml'), 'utf8'),
    );
    expect(workflow.on.schedule[0].cron).toMatch(/^\S+ \S+ \S+ \S+ \S+$/);
    const steps = workflow.jobs.export.steps as {
      name?: string;
      run?: string;
      uses?: string;
      with?: Record<string, string>;
    }[];
    const exportStep = steps.find((s) => s.name === 'Export all nine resources');
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact'));
    expect(exportStep?.run).toBeDefined();
    expect(upload?.with?.path).toBe('rcs-export/');
    // Credentials come from repository secrets, never from the file.
    expect(workflow.jobs.export.env.RCS_API_KEY).toMatch(/^\$\{\{ secrets\.RCS_API_KEY \}\}$/);

    const workspace = tempDir();
    const r = await sh('bash', ['-c', exportStep!.run!], mockEnv(), workspace);
    expect(r.code, r.stderr).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const dir = join(workspace, upload!.with!.path!, day);
    expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl'))).toHaveLength(9);
    expect(
      readdirSync(join(dir, 'csv')).filter((f) => f.endsWith('.csv')).length,
    ).toBeGreaterThanOrEqual(9);
    expect(existsSync(join(dir, 'manifest.json'))).toBe(true);
    // The step prints the manifest into the job log.
    expect(JSON.parse(r.stdout).resources).toHaveLength(9);
  });
});
