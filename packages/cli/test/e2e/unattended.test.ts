import { type ChildProcess, execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statfsSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { constants } from 'node:os';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  cliLine,
  labeledCall,
  type RunOptions,
  type RunResult,
  runCommand,
  signalTaken,
  startCli,
  tempDir,
} from './helpers.js';

// cli.md "Unattended runs": what a cron job or CI step relies on, driven over real
// processes, real HTTP, real signals, a real full device (/dev/full) and a real full file system
// (a small tmpfs, where this machine lets the test mount one).

/** Starts the built `rcs`; the run is killed (and the test fails) after `killAfterMs`. */
const spawnRcs = (args: string[], options: RunOptions) =>
  startCli(args, { killAfterMs: 30_000, ...options });

/**
 * The status a shell (and `timeout`, cron, CI) sees: the exit code, or 128 + the signal that
 * ended the process. A run stuck in a file-system call ends by re-raising the signal.
 */
function shellStatus(r: RunResult): number | null {
  if (r.code !== null) return r.code;
  return r.signal === null ? null : 128 + (constants.signals[r.signal] ?? 0);
}

/** Until `condition` holds: for states of another process that no event announces. */
async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error('timed out waiting for a condition');
    },
    { timeout: ms, interval: 20 },
  );
}

/**
 * Until a thread of `child` sleeps opening a FIFO that no one writes (Linux: its wchan is
 * `wait_for_partner`): the run is then stuck for good, on a machine however loaded, instead of
 * after a guessed delay.
 */
async function blockedOnFifo(child: ChildProcess): Promise<void> {
  const tasks = `/proc/${child.pid}/task`;
  const waiting = () =>
    readdirSync(tasks).some((tid) => {
      try {
        return readFileSync(join(tasks, tid, 'wchan'), 'utf8') === 'wait_for_partner';
      } catch {
        return false; // the thread ended meanwhile
      }
    });
  await until(waiting, 30_000);
}

/** A TCP listener that counts connections and answers none: "no request was sent" is 0. */
async function connectionCounter(): Promise<{ url: string; count: () => number; close(): void }> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, count: () => connections, close: () => server.close() };
}

/** A port on which nothing listens (refused connections). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function httpServer(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

let mock: MockServer | undefined;
const closers: (() => unknown)[] = [];

async function startMock(options: Parameters<typeof startMockServer>[0] = {}) {
  mock = await startMockServer({ port: 0, processingMs: 100, ...options });
  return {
    env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.info.apiKey ?? '' },
    rep: mock.info.repEmails[0] ?? '',
  };
}

beforeAll(() => assertBuilt());
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  for (const close of closers.splice(0)) await close();
});

describe('signals (item 1): a cron `timeout` always ends the run', () => {
  it('one SIGTERM ends a run stuck on work that never finishes (a key file that is a FIFO no one writes): 143 after the graceful deadline', async () => {
    const { env, rep } = await startMock();
    const dir = tempDir();
    // A transcript is never read from a FIFO (a regular file only); a key file may be one (a
    // pipe from a secret store), and opening one no one writes blocks for good.
    writeFileSync(join(dir, 'call.srt'), labeledCall(rep, 1));
    execFileSync('mkfifo', [join(dir, 'key')]);
    const run = spawnRcs(['upload', 'call.srt', '--email', rep, '--api-key-file', 'key'], {
      cwd: dir,
      env,
    });
    // Reading the FIFO now blocks for good (and the signal handlers are in place before it).
    await blockedOnFifo(run.child);
    run.child.kill('SIGTERM');
    const r = await run.done;
    // Ended by the graceful stop's deadline (spawnRcs would have killed it, 137, after 30 s).
    expect(shellStatus(r)).toBe(143);
    expect(r.stderr).toMatch(/stopped after 3 s without finishing the graceful stop/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a second signal exits at once, with the code of that signal', async () => {
    const { env, rep } = await startMock();
    const dir = tempDir();
    writeFileSync(join(dir, 'call.srt'), labeledCall(rep, 2));
    execFileSync('mkfifo', [join(dir, 'key')]);
    const run = spawnRcs(['upload', 'call.srt', '--email', rep, '--api-key-file', 'key'], {
      cwd: dir,
      env,
    });
    await blockedOnFifo(run.child);
    run.child.kill('SIGTERM');
    await signalTaken(run.child, 'SIGTERM');
    run.child.kill('SIGINT');
    const r = await run.done;
    // 130, SIGINT's: the second signal ended it; the first one's graceful deadline would have
    // ended it with 143 and its line.
    expect(shellStatus(r)).toBe(130);
    expect(r.stderr).not.toMatch(/stopped after 3 s/);
  });
});

describe('local checks before the network (items 2, 7)', () => {
  it('an --out that cannot be a directory is exit 2 before any request, also where mkdir -p would loop', async () => {
    const counter = await connectionCounter();
    closers.push(counter.close);
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'x');
    const env = { RCS_BASE_URL: counter.url, RCS_API_KEY: 'k-unattended-1' };
    for (const out of ['/proc/nope', join(dir, 'a-file'), join(dir, 'a-file', 'sub', 'deeper')]) {
      const r = await spawnRcs(['export', 'teams', '--out', out], { cwd: dir, env }).done;
      expect(r.code, `${out}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`--out ${out}: cannot use it as the output directory`);
    }
    expect(counter.count()).toBe(0);
  });

  it('an --out that does not exist yet is created, level by level, and the export lands there', async () => {
    const { env } = await startMock();
    const dir = tempDir();
    const out = join(dir, 'a', 'b', 'c');
    const r = await spawnRcs(['export', 'teams', '--out', out], { cwd: dir, env }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, 'teams.jsonl'))).toBe(true);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
  });

  it('a base URL with credentials is refused (exit 2), shown without them, before any request and any ledger', async () => {
    const counter = await connectionCounter();
    closers.push(counter.close);
    const dir = tempDir();
    const host = counter.url.replace('http://', '');
    const secret = 'sk_live_in_the_url_42';
    writeFileSync(join(dir, 'call.srt'), labeledCall('rep@acme.example', 1));
    for (const [args, env] of [
      [['--base-url', `http://user:${secret}@${host}`, 'export', 'teams', '--out', 'out'], {}],
      [
        ['upload', 'call.srt', '--email', 'rep@acme.example'],
        { RCS_BASE_URL: `http://${secret}@${host}` },
      ],
    ] as const) {
      const r = await spawnRcs([...args], {
        cwd: dir,
        env: { RCS_API_KEY: 'k-unattended-2', ...env },
      }).done;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stderr).toContain(`http://${host}/`);
      expect(r.stderr).toMatch(/must not contain credentials/);
    }
    expect(counter.count()).toBe(0);
    expect(existsSync(join(dir, '.rcs-ledger.jsonl'))).toBe(false);
    const set = await spawnRcs(['config', 'set', 'base-url', `https://u:${secret}@api.example`], {
      cwd: dir,
    }).done;
    expect(set.code).toBe(2);
    expect(set.stderr).not.toContain(secret);
  });
});

describe('an unreachable service (item 3)', () => {
  // A wrong base URL is far likelier than an outage: one retry at most (--verbose shows each),
  // not the export's eight over a minute.
  const retries = (stderr: string) => stderr.split('\n').filter((l) => /\bretrying\b/.test(l));

  it('a refused connection fails after one retry, with the hint', async () => {
    const port = await closedPort();
    const dir = tempDir();
    const r = await spawnRcs(['export', 'teams', '--out', 'out', '--verbose'], {
      cwd: dir,
      env: { RCS_BASE_URL: `http://127.0.0.1:${port}`, RCS_API_KEY: 'k-unattended-3' },
    }).done;
    expect(r.code).toBe(1);
    expect(retries(r.stderr).length).toBeLessThanOrEqual(1);
    expect(r.stderr).toMatch(/could not reach the service: .*ECONNREFUSED/);
    expect(r.stderr).toMatch(/check RCS_BASE_URL and your network/);
  });

  it('an unknown host fails after one retry, with the hint', async () => {
    const dir = tempDir();
    const r = await spawnRcs(
      ['sessions', 'get', '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b', '--verbose'],
      {
        cwd: dir,
        env: { RCS_BASE_URL: 'https://rcs-nowhere.invalid', RCS_API_KEY: 'k-unattended-4' },
      },
    ).done;
    expect(r.code).toBe(1);
    expect(retries(r.stderr).length).toBeLessThanOrEqual(1);
    expect(r.stderr).toMatch(/could not reach the service: .*(ENOTFOUND|EAI_AGAIN)/);
  });

  it('a port that fetch blocks (6000: the Fetch standard keeps it for X11) fails at once, naming it', async () => {
    const dir = tempDir();
    const r = await spawnRcs(['export', 'teams', '--out', 'out', '--verbose'], {
      cwd: dir,
      env: { RCS_BASE_URL: 'http://127.0.0.1:6000', RCS_API_KEY: 'k-unattended-5' },
    }).done;
    expect(r.code).toBe(1);
    expect(retries(r.stderr)).toEqual([]);
    expect(r.stderr).toMatch(/fetch refuses port 6000/);
    expect(r.stderr).toMatch(/run the service on another port/);
  });
});

/** Of the `-> NNN` lines `--verbose` prints, how many and how many were 429. */
function answers(stderr: string): { total: number; limited: number } {
  // (Each line may end with the request id.)
  const statuses = [...stderr.matchAll(/ -> (\d{3})(?: \(request id [^)]*\))?$/gm)].map(
    (m) => m[1],
  );
  return { total: statuses.length, limited: statuses.filter((s) => s === '429').length };
}

// How few requests are answered 429 (the share) is timing, measured in bench/cli/rate-limit.mjs
// (bench/cli/README.md "Under a rate limit"); here: the runs finish, whole, through the 429s.
describe('a rate-limited service (item 4): adapt, do not hammer', () => {
  it('export all against 20 requests/s: refused requests are retried and the export is complete', async () => {
    const { env } = await startMock({ faults: { rateLimit: 20 }, records: 20_000 });
    const dir = tempDir();
    const r = await spawnRcs(['--verbose', 'export', 'all', '--out', 'out'], {
      cwd: dir,
      env,
      killAfterMs: 90_000,
    }).done;
    // Exit 0: every file verified against the service's totals (EXPORT.md, Exactness).
    expect(r.code, r.stderr.slice(-500)).toBe(0);
    expect(existsSync(join(dir, 'out', 'manifest.json'))).toBe(true);
    const { total, limited } = answers(r.stderr);
    expect(total).toBeGreaterThan(100);
    expect(limited).toBeGreaterThan(0); // the limit was met, not avoided by a slow machine
  }, 120_000);

  it('a 200-file batch upload against 20 requests/s: every file uploaded', async () => {
    const { env, rep } = await startMock({ faults: { rateLimit: 20 }, processingMs: 0 });
    const dir = tempDir();
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, `c${i}.srt`), labeledCall(rep, i));
    const files = Array.from({ length: 200 }, (_, i) => `c${i}.srt`);
    const r = await spawnRcs(['--verbose', 'upload', ...files, '--email', rep], {
      cwd: dir,
      env,
      killAfterMs: 90_000,
    }).done;
    expect(r.code, r.stderr.slice(-500)).toBe(0);
    expect(r.stdout.match(/^created /gm)).toHaveLength(200);
  }, 120_000);
});

describe('a broken or hostile service (items 5, 9)', () => {
  it('--allow-drift does not follow a service that says hasNext: true forever with nothing new', async () => {
    let requests = 0;
    const { url, server } = await httpServer((req, res) => {
      requests++;
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: [{ id: 'only-one', name: 'Team' }],
          meta: { total: 1, page, limit: 100, hasNext: true },
        }),
      );
    });
    closers.push(() => server.close());
    const dir = tempDir();
    const r = await spawnRcs(['export', 'teams', '--allow-drift', '--out', 'out'], {
      cwd: dir,
      env: { RCS_BASE_URL: url, RCS_API_KEY: 'k-unattended-5' },
    }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/brought no new record but says hasNext: true/);
    expect(requests).toBeLessThanOrEqual(12);
    const lines = readFileSync(join(dir, 'out', 'teams.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(lines).toHaveLength(1);
  });

  it('an answer larger than 32 MiB fails that request with a clear error, unread', async () => {
    const { url, server } = await httpServer((_req, res) => {
      // 40 MiB of one page, streamed without a length (a broken proxy or a hostile service).
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = () => {
        while (sent < 40) {
          sent++;
          if (!res.write(chunk)) {
            res.once('drain', more);
            return;
          }
        }
        res.end('{}');
      };
      res.write('{"data":[');
      more();
    });
    closers.push(() => server.closeAllConnections());
    closers.push(() => server.close());
    const dir = tempDir();
    const r = await spawnRcs(['export', 'users', '--out', '-'], {
      cwd: dir,
      env: { RCS_BASE_URL: url, RCS_API_KEY: 'k-unattended-6' },
    }).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/larger than 32 MiB; it was not read/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/** Mounts a small tmpfs (root only); undefined where the machine does not allow it. */
function smallFileSystem(kib: number): string | undefined {
  const dir = tempDir('rcs-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', dir], {
      stdio: 'ignore',
    });
  } catch {
    return undefined;
  }
  closers.push(() => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }));
  return dir;
}

/** Fills the rest of the file system holding `dir`: every further block allocation fails. */
function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  expect(statfsSync(dir).bavail).toBe(0);
}

const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * `rcs upload call.srt --ledger <disk>/ledger.jsonl` against a mock that takes a second to answer,
 * resolved once the upload's write-ahead `sending` line is on the disk (the create is in flight).
 */
async function uploadInFlight(disk: string) {
  const { env, rep } = await startMock({ processingMs: 0, faults: { latencyMs: 1_000 } });
  const dir = tempDir();
  writeFileSync(join(dir, 'call.srt'), labeledCall(rep, 1));
  const ledger = join(disk, 'ledger.jsonl');
  const upload = () =>
    spawnRcs(['upload', 'call.srt', '--email', rep, '--ledger', ledger], { cwd: dir, env });
  const run = upload();
  await until(() => existsSync(ledger) && readFileSync(ledger, 'utf8').includes('sending'));
  return { run, ledger, upload };
}

describe('a full disk (item 6): nothing duplicated, nothing lost', () => {
  it.runIf(canMount)(
    'the ledger cannot take the intent: nothing is sent, one line says why',
    async (ctx) => {
      const disk = smallFileSystem(64);
      if (!disk) return ctx.skip();
      const { env, rep } = await startMock({ processingMs: 0 });
      const dir = tempDir();
      writeFileSync(join(dir, 'call.srt'), labeledCall(rep, 1));
      const ledger = join(disk, 'ledger.jsonl');
      writeFileSync(ledger, '');
      fill(disk);
      const r = await spawnRcs(['upload', 'call.srt', '--email', rep, '--ledger', ledger], {
        cwd: dir,
        env,
      }).done;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/not uploaded: the ledger cannot be written \(ENOSPC\)/);
      expect(mock?.api.state.counts().createdSessions).toBe(0);
    },
  );

  it.runIf(canMount)(
    'a disk that fills up while the create is in flight still gets its outcome: written in place, one line',
    async (ctx) => {
      const disk = smallFileSystem(64);
      if (!disk) return ctx.skip();
      const { run, ledger } = await uploadInFlight(disk);
      fill(disk);
      const r = await run.done;
      expect(r.code, r.stderr).toBe(0);
      const lines = readFileSync(ledger, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ status: 'created' });
    },
  );

  it.runIf(canMount)(
    'a ledger that breaks after the create: the session id is printed, exit 1, and a re-run does not create it again',
    async (ctx) => {
      const disk = smallFileSystem(64);
      if (!disk) return ctx.skip();
      const { run, upload } = await uploadInFlight(disk);
      // The file system goes read-only while the create is in flight (a failing disk does that).
      execFileSync('mount', ['-o', 'remount,ro', disk], { stdio: 'ignore' });
      const first = await run.done;
      expect(mock?.api.state.counts().createdSessions).toBe(1);
      const id = /uploaded as session (\S+), but the ledger could not record it \(EROFS\)/.exec(
        first.stderr,
      )?.[1];
      expect(id, first.stderr).toBeDefined();
      expect(first.stdout).toContain(id);
      expect(first.code).toBe(1);
      execFileSync('mount', ['-o', 'remount,rw', disk], { stdio: 'ignore' });
      // Its intent is the ledger's last word about it: unknown, so it is not sent again but
      // looked for on the service (D28), found, and recorded with the same session id.
      const again = await upload().done;
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`^skipped .* ${id} {2}\\(found on the service`, 'm'));
      expect(mock?.api.state.counts().createdSessions).toBe(1);
    },
  );
});

describe('standard output (item 8)', () => {
  it('a full device is one clear line and exit 1, never a stack trace', async () => {
    const { env } = await startMock();
    const dir = tempDir();
    const full = openSync('/dev/full', 'w');
    try {
      const r = await spawnRcs(['export', 'users', '--out', '-'], {
        cwd: dir,
        env,
        stdio: ['ignore', full, 'pipe'],
      }).done;
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        'rcs: cannot write to standard output: no space left on the device (ENOSPC)',
      ]);
    } finally {
      closeSync(full);
    }
  });

  it('`| head -n 1` gets its line and the run ends without a message, exit 0', async () => {
    const { env } = await startMock();
    const dir = tempDir();
    const { stdout, stderr } = await runCommand(
      'bash',
      [
        '-c',
        `set -o pipefail; ${cliLine(['export', 'users', '--out', '-'])} | head -n 1; echo "status=\${PIPESTATUS[0]}" >&2`,
      ],
      { cwd: dir, env, killAfterMs: 30_000 },
    );
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toHaveProperty('id');
    expect(stderr).toBe('status=0\n');
  });
});

describe('config edge cases (item 10)', () => {
  it('a profile name that is not a plain identifier is refused, and nothing is written', async () => {
    const dir = tempDir();
    for (const name of ['__proto__', 'constructor x', '../etc', '-dash']) {
      const r = await spawnRcs(
        ['config', 'set', 'base-url', 'https://api.example.com', '--profile', name],
        { cwd: dir },
      ).done;
      expect(r.code, name).toBe(2);
      expect(r.stderr).toMatch(/profile name .* is not allowed/);
    }
    expect(existsSync(join(dir, 'config', 'rcs', 'config.json'))).toBe(false);
    const ok = await spawnRcs(['config', 'set', 'base-url', 'https://api.example.com'], {
      cwd: dir,
      env: { RCS_PROFILE: 'constructor' },
    }).done;
    expect(ok.code, ok.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(join(dir, 'config', 'rcs', 'config.json'), 'utf8'));
    expect(saved.profiles.constructor).toEqual({ 'base-url': 'https://api.example.com' });
  });

  it('an API key given on the command line is saved, with a warning on stderr even in a script', async () => {
    const dir = tempDir();
    const r = await spawnRcs(['config', 'set', 'api-key', 'sk_test_on_the_command_line'], {
      cwd: dir,
    }).done;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*shell history.*rcs config set api-key -/);
    expect(r.stderr).not.toContain('sk_test_on_the_command_line');
  });
});
