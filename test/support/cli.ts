/**
 * Running the built `rcs` in tests, for every suite that does (the CLI's e2e tests, the
 * acceptance tests): one runner, one clean environment, one way to start `rcs mock`.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
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
  /** Added to the clean environment (baseEnv); a variable given as undefined is removed. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (closed at once without it). */
  input?: string;
  /**
   * What runs the CLI's file: a program and the words before the file (default this Node):
   * Node with flags, Bun, Deno, or the CLI under `setpriv …`, `unshare …`.
   */
  command?: string[];
  /** The child's stdio (default three pipes); a stream that is not a pipe is not collected. */
  stdio?: StdioOptions;
  /** Standard output is a pipe nobody reads: once it is full, the run's writes wait for good. */
  unreadStdout?: boolean;
  /** Killed (SIGKILL) after this long: a run stuck for good does not outlive its test. */
  killAfterMs?: number;
}

/** A running process: for signals and live output; `done` once it has ended. */
export interface Running {
  child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with all `stream` holds once it holds `what`; rejects if the process ends first. */
  seen(
    stream: 'stdout' | 'stderr',
    what: string | RegExp | ((text: string) => boolean),
  ): Promise<string>;
  done: Promise<RunResult>;
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

/** Starts `node dist/rcs.js …` (with the same Node as the tests: the pinned Node 24). */
export function startCli(args: string[], options: RunOptions): Running {
  const [bin = process.execPath, ...before] = options.command ?? [process.execPath];
  return startCommand(bin, [...before, CLI, ...args], options);
}

/** Runs the CLI to its end. */
export function runCli(args: string[], options: RunOptions): Promise<RunResult> {
  return startCli(args, options).done;
}

/** Runs any command to its end, as startCommand starts it. */
export function runCommand(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return startCommand(bin, args, options).done;
}

/**
 * A `command` that runs the CLI without the two capabilities that bypass file modes
 * (util-linux's setpriv): as root, a file of mode 000 is then unreadable, as it is to a user.
 */
export const WITHOUT_FILE_OVERRIDE = [
  'setpriv',
  '--bounding-set',
  '-dac_override,-dac_read_search',
  '--',
  process.execPath,
];

/** The CLI as a line for a shell (`sh -c`, `script -c`), each word quoted. */
export function cliLine(args: string[]): string {
  return [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
}

/**
 * Starts any command in a clean environment, without blocking this process (an in-process mock
 * keeps answering), and collects its output.
 */
function startCommand(bin: string, args: string[], options: RunOptions): Running {
  const env: Record<string, string> = { ...baseEnv(options.cwd) };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(bin, args, { cwd: options.cwd, env, stdio: options.stdio ?? 'pipe' });
  const out = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    if (stream === 'stdout' && options.unreadStdout) continue;
    child[stream]?.setEncoding('utf8').on('data', (d: string) => {
      out[stream] += d;
    });
  }
  const killer =
    options.killAfterMs === undefined
      ? undefined
      : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, ...out });
    });
  });
  child.stdin?.end(options.input);
  const holds = (text: string, what: string | RegExp | ((text: string) => boolean)) =>
    typeof what === 'string'
      ? text.includes(what)
      : typeof what === 'function'
        ? what(text)
        : what.test(text);
  return {
    child,
    stderr: () => out.stderr,
    seen: (stream, what) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!holds(out[stream], what)) return;
          child[stream]?.off('data', check);
          resolve(out[stream]);
        };
        child[stream]?.on('data', check);
        done.then(
          () => reject(new Error(`ended before ${stream} held ${what}:\n${out[stream]}`)),
          reject,
        );
        check();
      }),
    done,
  };
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
  const run = startCli(['mock', '--json', ...port, ...args], { cwd: tempDir('rcs-mock-') });
  const { child } = run;
  const first = await run.seen('stdout', '\n').catch(() => {
    throw new Error(`rcs mock exited ${child.exitCode}: ${run.stderr()}`);
  });
  const info = JSON.parse(first.slice(0, first.indexOf('\n'))) as {
    url: string;
    apiKey?: string | null;
    repEmails?: string[];
  };
  const matching = (pattern: RegExp) =>
    run
      .stderr()
      .split('\n')
      .filter((l) => pattern.test(l));
  return {
    url: info.url,
    apiKey: info.apiKey ?? '',
    repEmails: info.repEmails ?? [],
    env: { RCS_BASE_URL: info.url, RCS_API_KEY: info.apiKey ?? '' },
    child,
    stderr: run.stderr,
    stderrLines: async (pattern, count) => {
      await run.seen('stderr', () => matching(pattern).length >= count);
      return matching(pattern);
    },
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return (await run.done).code;
    },
  };
}
