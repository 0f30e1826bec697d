/**
 * `rcs export` among others, over real processes and files (the built `rcs`, `rcs mock`'s server
 * on loopback):
 *
 * - the change state's one pointer, `manifest.json`, deleted or damaged beside its snapshots:
 *   the next `--changes` run fails naming `--full` and touches nothing, instead of starting over
 *   silently and pruning the snapshot the consumer's `--ack` names;
 * - a shared directory (sticky, world-writable) where another user plants symbolic links under
 *   the names rcs writes: rcs refuses them with a clear error, or replaces the link, and never
 *   writes through it to the file it points to.
 */
import { spawnSync } from 'node:child_process';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha, snapshot } from '../../../../test/support/files.js';
import { HOSTILE_API_KEY, hostileFixture } from '../support/hostile-fixture.js';
import { assertBuilt, runCli, tempDir } from './helpers.js';

let cwd: string;
let mock: MockServer;
beforeAll(async () => {
  assertBuilt();
  cwd = tempDir('rcs-export-shared-');
  mock = await startMockServer({ port: 0, fixture: hostileFixture() });
});
afterAll(async () => {
  await mock.close();
  await rm(cwd, { recursive: true, force: true });
});

const exportTo = (args: string[]) =>
  runCli(['export', ...args], {
    cwd,
    env: { RCS_BASE_URL: mock.url, RCS_API_KEY: HOSTILE_API_KEY },
  });

/** The change snapshots in `dir`, each with its checksum. */
const snapshotsIn = (dir: string) => snapshot(dir, (n) => n.includes('.changes-state.'));

describe('a manifest deleted or damaged beside change snapshots', () => {
  it.each([
    ['deleted', (path: string) => unlink(path)],
    ['cut short', async (path: string) => writeFile(path, (await readFile(path)).subarray(0, 200))],
    [
      'replaced by one of a run without --changes',
      async (path: string) => {
        const { changes: _, ...rest } = JSON.parse(await readFile(path, 'utf8'));
        await writeFile(path, JSON.stringify(rest));
      },
    ],
  ])(
    '%s: the next run fails naming --full and touches nothing; --full then starts over',
    async (what, damage) => {
      const dir = join(cwd, `manifest-${what.split(' ')[0]}`);
      const first = await exportTo(['users', '--changes', '--out', dir]);
      expect(first.code, first.stderr).toBe(0);
      const runId = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).changes.runId;
      const second = await exportTo(['users', '--changes', '--out', dir]);
      expect(second.code, second.stderr).toBe(0);
      const snapshots = await snapshotsIn(dir);
      expect(Object.keys(snapshots)).toHaveLength(2);
      const changeFile = await sha(join(dir, 'users.changes.jsonl'));
      await damage(join(dir, 'manifest.json'));

      for (const ack of [[], ['--ack', runId]]) {
        const r = await exportTo(['users', '--changes', ...ack, '--out', dir]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(join(dir, 'manifest.json'));
        expect(r.stderr).toMatch(
          /(is missing|cannot be used \(.+\)), but .* holds change snapshots of earlier runs .*Nothing was changed; run with --full to start over/,
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        // Nothing pruned, nothing replaced: the consumer's --ack still finds its snapshot.
        expect(await snapshotsIn(dir)).toEqual(snapshots);
        expect(await sha(join(dir, 'users.changes.jsonl'))).toBe(changeFile);
      }

      const full = await exportTo(['users', '--changes', '--full', '--out', dir]);
      expect(full.code, full.stderr).toBe(0);
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.resources[0].changes).toMatchObject({
        base: null,
        inserts: hostileFixture().organizations[0]!.users.length,
      });
      // And the runs after it compare with it again.
      const next = await exportTo(['users', '--changes', '--out', dir]);
      expect(next.code, next.stderr).toBe(0);
      expect(
        JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).resources[0].changes,
      ).toMatchObject({ base: manifest.changes.runId, inserts: 0, updates: 0, deletes: 0 });
    },
    120_000,
  );
});

const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

/** Runs `ln -s target link` as the user nobody (uid and gid 65534). */
function plantAsNobody(target: string, link: string): void {
  const r = spawnSync('ln', ['-s', target, link], { uid: NOBODY, gid: NOBODY });
  if (r.status !== 0) throw new Error(`ln -s as nobody failed: ${r.stderr}`);
}

// Root writes into a directory where another user can create names: the test needs a second uid
// (`spawn` with uid 65534), which only root can take. Not root: skipped, and said so here.
describe.skipIf(!isRoot)(
  'a shared directory (mode 1777): links another user planted under the names rcs writes',
  () => {
    let base: string;
    let victim: string;
    let victimMtime: Date;

    beforeAll(async () => {
      base = await mkdtemp('/tmp/rcs-shared-');
      await chmod(base, 0o755);
      victim = join(base, 'victim.txt');
      await writeFile(victim, 'precious, root-owned\n', { mode: 0o644 });
      victimMtime = new Date(Date.now() - 3_600_000);
      await utimes(victim, victimMtime, victimMtime);
    });
    afterAll(async () => {
      await rm(base, { recursive: true, force: true });
    });

    /** A fresh sticky, world-writable directory, as /tmp is. */
    async function sharedDir(name: string): Promise<string> {
      const dir = join(base, name);
      await mkdir(dir);
      await chmod(dir, 0o1777);
      return dir;
    }

    async function expectVictimUntouched(): Promise<void> {
      expect(await readFile(victim, 'utf8')).toBe('precious, root-owned\n');
      const info = await stat(victim);
      expect(info.mtimeMs).toBe(victimMtime.getTime());
      expect(info.size).toBe('precious, root-owned\n'.length);
    }

    it('the lock: refused with a clear error, nothing written through it', async () => {
      const dir = await sharedDir('lock');
      plantAsNobody(victim, join(dir, '.rcs-export.lock'));
      expect((await lstat(join(dir, '.rcs-export.lock'))).uid).toBe(NOBODY);
      const r = await exportTo(['teams', '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `${join(dir, '.rcs-export.lock')} is a symbolic link, refused: rcs never reads or writes its own files through a link`,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      await expectVictimUntouched();
      expect((await readdir(dir)).sort()).toEqual(['.rcs-export.lock']);
    });

    it('the lock, dangling: refused, and nothing is created where it points', async () => {
      const dir = await sharedDir('lock-dangling');
      const target = join(base, 'created-through-the-link');
      plantAsNobody(target, join(dir, '.rcs-export.lock'));
      const r = await exportTo(['teams', '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/\.rcs-export\.lock is a symbolic link, refused/);
      await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('the manifest, read by --changes: refused with a clear error, its target not taken for the state', async () => {
      const dir = await sharedDir('manifest');
      plantAsNobody(victim, join(dir, 'manifest.json'));
      const r = await exportTo(['teams', '--changes', '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${join(dir, 'manifest.json')} is a symbolic link, refused`);
      await expectVictimUntouched();
    });

    it.each([
      ['sticky, world-writable (1777)', 0o1777],
      ['setgid, group-writable (2775)', 0o2775],
    ])(
      '--out, a link another user planted in a %s directory: refused, exit 2, nothing written where it points',
      async (_, mode) => {
        const dir = await sharedDir(`out-${mode.toString(8)}`);
        await chown(dir, 0, NOBODY);
        await chmod(dir, mode);
        const target = join(base, `root-only-${mode.toString(8)}`);
        await mkdir(target, { mode: 0o700 });
        plantAsNobody(target, join(dir, 'export'));
        const r = await exportTo(['teams', '--out', join(dir, 'export')]);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(
          `${join(dir, 'export')} is a symbolic link another user could have made or replaced, refused`,
        );
        expect(await readdir(target)).toEqual([]);
        // One the user made, in a directory only they can write to, is followed.
        const own = join(base, `own-${mode.toString(8)}`);
        await symlink(target, own);
        const followed = await exportTo(['teams', '--out', own]);
        expect(followed.code, followed.stderr).toBe(0);
        expect((await readdir(target)).sort()).toEqual(['manifest.json', 'teams.jsonl']);
      },
    );

    it('the manifest and a data file, written: the links are replaced, their targets untouched', async () => {
      const dir = await sharedDir('replaced');
      plantAsNobody(victim, join(dir, 'manifest.json'));
      plantAsNobody(victim, join(dir, 'teams.jsonl'));
      const r = await exportTo(['teams', '--out', dir]);
      expect(r.code, r.stderr).toBe(0);
      await expectVictimUntouched();
      for (const name of ['manifest.json', 'teams.jsonl']) {
        const info = await lstat(join(dir, name));
        expect(info.isFile()).toBe(true);
        expect(info.uid).toBe(0);
        expect(info.mode & 0o777).toBe(0o600);
      }
    });
  },
);

describe('a target that cannot be replaced (a directory named manifest.json)', () => {
  it('the run fails before replacing any file, and says the files were left as they were', async () => {
    const dir = join(cwd, 'manifest-is-a-directory');
    const first = await exportTo(['users', 'teams', '--out', dir]);
    expect(first.code, first.stderr).toBe(0);
    // A replaced file is a new inode (the rename), even with the same bytes.
    const files = async () =>
      Promise.all(
        ['users.jsonl', 'teams.jsonl'].map(async (n) => [n, (await stat(join(dir, n))).ino]),
      );
    const before = await files();
    await rm(join(dir, 'manifest.json'));
    await mkdir(join(dir, 'manifest.json'));
    await writeFile(join(dir, 'manifest.json', 'kept.txt'), 'x');

    const r = await exportTo(['users', 'teams', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'manifest.json')} is a directory`);
    expect(r.stderr).toContain(`files in ${dir} were left as they were`);
    expect(await files()).toEqual(before);
    expect((await readdir(dir)).sort()).toEqual(['manifest.json', 'teams.jsonl', 'users.jsonl']);
  });
});
