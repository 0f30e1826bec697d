/**
 * What `rcs upload` (and `rcs check`, the config file, `rcs mock --fixture`) reads, over real
 * processes and files, as root with a second uid (`nobody`): a shared drop folder where another
 * user plants links to files rcs must not send, a FIFO that would hang a read, a link to a device
 * that never ends, a file far larger than any transcript. A directory gives its regular files only
 * (links not followed, every other entry named as skipped); a file named on the command line is
 * read through a link only when the user made it where no one else could replace it.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  labeledCall,
  type MockProcess,
  runCli,
  sessionsWith,
  startMock,
  tempDir,
  WITHOUT_FILE_OVERRIDE,
} from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });
const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;
let m: MockProcess;
let rep: string;
beforeAll(async () => {
  assertBuilt();
  m = await startMock(['--processing-ms', '0']);
  rep = m.repEmails[0] ?? '';
});
afterAll(async () => {
  await m?.stop();
});

const asNobody = (cmd: string, ...args: string[]) =>
  execFileSync(cmd, args, { uid: NOBODY, gid: NOBODY });
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A base directory `nobody` can reach (mkdtemp makes it 0700), with root's secrets beside it. */
function place(): { base: string; rootSecret: string; othersCall: string; texts: string[] } {
  const base = mkdtempSync('/tmp/rcs-reads-');
  chmodSync(base, 0o755);
  // Transcripts that pass pre-validation: sent, the mock's export would hold them.
  const texts = [1, 2, 3].map((n) => labeledCall(rep, 4200 + n + Math.random()));
  const rootSecret = join(base, 'root-only.srt');
  writeFileSync(rootSecret, texts[1]!, { mode: 0o600 });
  // Another user's private call (uid 4242 needs no account): root can read it, and must not send it.
  const othersCall = join(base, 'someone-elses.srt');
  writeFileSync(othersCall, texts[2]!, { mode: 0o600 });
  chownSync(othersCall, 4242, 4242);
  return { base, rootSecret, othersCall, texts };
}

describe.skipIf(!isRoot)('rcs upload DIR in a shared drop folder (needs root)', () => {
  it.each([
    ['sticky, world-writable (1777)', 0o1777],
    ['setgid, group-writable (2775)', 0o2775],
  ])('%s: only regular files are read; each planted entry is named as skipped', async (_, mode) => {
    const { base, rootSecret, othersCall, texts } = place();
    const drop = join(base, 'drop');
    mkdirSync(drop);
    chownSync(drop, 0, NOBODY); // nobody writes through the group (2775) or as anyone (1777)
    chmodSync(drop, mode);
    writeFileSync(join(drop, 'a.srt'), texts[0]!);
    asNobody('ln', '-s', rootSecret, join(drop, 'z-notes.txt'));
    asNobody('ln', '-s', othersCall, join(drop, 'y-call.srt'));
    asNobody('ln', '-s', '/dev/urandom', join(drop, 'random.txt'));
    asNobody('mkfifo', join(drop, 'inbox.srt'));

    const r = await runCli(['upload', drop, '--email', rep, '--json'], { cwd: base, env: m.env });
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    const skipped = (name: string, code: string) => ({
      file: join(drop, name),
      status: 'skipped',
      reason: { code, message: expect.stringContaining(code === 'fifo' ? 'FIFO' : 'link') },
    });
    expect(lines).toEqual(
      expect.arrayContaining([
        skipped('inbox.srt', 'fifo'),
        skipped('random.txt', 'symbolic_link'),
        skipped('y-call.srt', 'symbolic_link'),
        skipped('z-notes.txt', 'symbolic_link'),
        expect.objectContaining({ file: join(drop, 'a.srt'), status: 'created' }),
      ]),
    );
    expect(lines).toHaveLength(5);
    expect(await sessionsWith(m, texts)).toEqual([1, 0, 0]);

    // The human output names each one too, with why.
    const again = await runCli(['upload', drop, '--email', rep], { cwd: base, env: m.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `skipped  ${join(drop, 'z-notes.txt')}  (a symbolic link: links in a directory are not followed`,
    );
    expect(again.stdout).toContain(`skipped  ${join(drop, 'inbox.srt')}  (a FIFO (named pipe)`);
    expect(await sessionsWith(m, texts)).toEqual([1, 0, 0]);
  });
});

describe.skipIf(!isRoot)('a file named on the command line (needs root)', () => {
  it("the user's own link is followed; one planted in a sticky directory by another user is refused", async () => {
    const { base, rootSecret, texts } = place();
    const own = join(base, 'mine');
    mkdirSync(own, { mode: 0o700 });
    symlinkSync(rootSecret, join(own, 'call.srt'));
    const shared = join(base, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    asNobody('ln', '-s', rootSecret, join(shared, 'call.srt'));

    const planted = await runCli(['upload', join(shared, 'call.srt'), '--email', rep], {
      cwd: base,
      env: m.env,
    });
    expect(planted.code, planted.stderr).toBe(2);
    expect(planted.stderr).toContain(
      `${join(shared, 'call.srt')} is a symbolic link another user could have made or replaced, refused`,
    );
    expect(planted.stderr).toContain(`the link belongs to uid ${NOBODY}`);
    expect(await sessionsWith(m, [texts[1]!])).toEqual([0]);

    const mine = await runCli(['upload', join(own, 'call.srt'), '--email', rep], {
      cwd: base,
      env: m.env,
    });
    expect(mine.code, mine.stderr).toBe(0);
    expect(await sessionsWith(m, [texts[1]!])).toEqual([1]);
  });

  it('a FIFO, a link to /dev/urandom and a huge file are refused without blocking or reading them whole', async () => {
    const dir = tempDir('rcs-reads-');
    execFileSync('mkfifo', [join(dir, 'pipe.srt')]);
    symlinkSync('/dev/urandom', join(dir, 'random.srt'));
    writeFileSync(join(dir, 'huge.srt'), '');
    truncateSync(join(dir, 'huge.srt'), 256 * 1024 * 1024); // sparse: no disk, no time to make
    const good = labeledCall(rep, 4300 + Math.random());
    writeFileSync(join(dir, 'good.srt'), good);

    for (const [file, why] of [
      ['pipe.srt', 'not a regular file (a FIFO, socket, device or directory)'],
      ['random.srt', 'not a regular file (a FIFO, socket, device or directory)'],
      ['huge.srt', 'larger than 4,000,000 bytes, refused without reading it'],
    ] as const) {
      const r = await runCli(['check', file], { cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${file}: ${why}`);
    }
    // In a batch they fail as unreadable files; the others go.
    const r = await runCli(
      ['upload', 'pipe.srt', 'random.srt', 'huge.srt', 'good.srt', '--email', rep],
      { cwd: dir, env: m.env },
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('huge.srt: larger than 4,000,000 bytes');
    expect(await sessionsWith(m, [good])).toEqual([1]);
  });
});

describe.skipIf(!isRoot)('the other files rcs reads (needs root)', () => {
  it('an unreadable config file gets a sentence, not a raw EACCES', async () => {
    const dir = tempDir('rcs-reads-');
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'config', 'rcs'), { recursive: true });
    const path = join(dir, 'config', 'rcs', 'config.json');
    // Another user's, as after `sudo -u svc rcs config set`. The CLI runs as root without the two
    // capabilities that bypass file modes, not as another user: the clone may sit in a private
    // directory (mode 0700, as `mktemp -d` makes it) that no other user can reach.
    writeFileSync(path, '{"profiles":{}}', { mode: 0o600 });
    chownSync(path, 65534, 65534);
    const r = await runCli(['config', 'list'], {
      cwd: dir,
      command: WITHOUT_FILE_OVERRIDE,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cannot read the config file ${path}: you have no permission to read it (EACCES)`,
    );
    expect(r.stderr).toContain('sudo chown');
    expect(r.stderr).not.toContain("open '");
  });

  it('the config file and a fixture through a link another user planted are refused', async () => {
    const base = mkdtempSync('/tmp/rcs-reads-');
    chmodSync(base, 0o755);
    const shared = join(base, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const fixture = join(base, 'root-fixture.json');
    writeFileSync(fixture, '{}', { mode: 0o600 });
    asNobody('ln', '-s', fixture, join(shared, 'fixture.json'));
    const mock = await runCli(['mock', '--port', '0', '--fixture', join(shared, 'fixture.json')], {
      cwd: base,
    });
    expect(mock.code).toBe(2);
    expect(mock.stderr).toContain('is a symbolic link another user could have made or replaced');

    mkdirSync(join(shared, 'rcs'), { mode: 0o777 });
    chownSync(join(shared, 'rcs'), NOBODY, NOBODY);
    asNobody('ln', '-s', fixture, join(shared, 'rcs', 'config.json'));
    const config = await runCli(['config', 'list'], {
      cwd: base,
      env: { XDG_CONFIG_HOME: shared },
    });
    expect(config.code).toBe(1);
    expect(config.stderr).toContain('is a symbolic link another user could have made or replaced');
  });
});
