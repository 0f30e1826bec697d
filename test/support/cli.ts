/**
 * Running the built `rcs` in tests, for every suite that does (the CLI's e2e tests, the
 * acceptance tests): one runner, one clean environment, one way to start `rcs mock`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI: e2e tests run what users run (`npm run build` first). */
export const CLI = fileURLToPath(new URL('../../packages/cli/dist/rcs.js', import.meta.url));
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` before the e2e tests`);
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  input?: string;
  /** Called with the child right after spawn (e.g. to send SIGINT later). */
  onSpawn?: (child: ChildProcess) => void;
}

/** A clean environment: no RCS_* from the developer's shell, config in the temp dir, no colour. */
export function baseEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    NO_COLOR: '1',
  };
}

/** Spawns `node dist/rcs.js …` with the same Node as the tests (the pinned Node 24). */
export function runCli(args: string[], options: RunOptions): Promise<RunResult> {
  return runCommand(process.execPath, [CLI, ...args], options);
}

/**
 * Spawns any command in a clean environment (baseEnv plus `env`; undefined removes a variable),
 * without blocking this process (an in-process mock keeps answering), and collects its output.
 */
export function runCommand(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { ...baseEnv(options.cwd) };
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(bin, args, { cwd: options.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    options.onSpawn?.(child);
  });
}

export function tempDir(prefix = 'rcs-e2e-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface MockProcess {
  url: string;
  /** The demo dataset's API key ('' with --fixture). */
  apiKey: string;
  /** The demo dataset's rep emails ([] with --fixture). */
  repEmails: string[];
  /** The environment that points `rcs` at it (RCS_BASE_URL, RCS_API_KEY). */
  env: { RCS_BASE_URL: string; RCS_API_KEY: string };
  child: ChildProcess;
  /** What the mock wrote on stderr so far (its -v log). */
  stderr(): string;
  /** Resolves once stderr holds `count` lines matching `pattern`, with those lines. */
  stderrLines(pattern: RegExp, count: number): Promise<string[]>;
  /** Sends `signal` (SIGTERM) and resolves with the exit code once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * A real `rcs mock` process on loopback (any free port unless `--port` is given). It is read
 * through --json (cli.md: one line with the URL, the key and the reps), so it is ready, with all
 * it says on stdout, as soon as that line is there.
 */
export async function startMock(args: string[] = []): Promise<MockProcess> {
  const port = args.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [CLI, 'mock', '--json', ...port, ...args], {
    env: baseEnv(tempDir('rcs-mock-')),
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const info = await new Promise<{ url: string; apiKey?: string | null; repEmails?: string[] }>(
    (resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      closed.then((code) => reject(new Error(`rcs mock exited ${code}: ${err}`)));
    },
  );
  const matching = (pattern: RegExp) => err.split('\n').filter((l) => pattern.test(l));
  return {
    url: info.url,
    apiKey: info.apiKey ?? '',
    repEmails: info.repEmails ?? [],
    env: { RCS_BASE_URL: info.url, RCS_API_KEY: info.apiKey ?? '' },
    child,
    stderr: () => err,
    stderrLines: (pattern, count) =>
      new Promise((resolve) => {
        const check = () => {
          if (matching(pattern).length < count) return;
          child.stderr.off('data', check);
          resolve(matching(pattern));
        };
        child.stderr.on('data', check);
        check();
      }),
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return closed;
    },
  };
}
