import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { committedChanges } from '../../src/changes/bases.js';
import { ChangesStateError, stateFileOf } from '../../src/changes/state-file.js';
import { UnsafeFileError } from '../../src/files/safe-open.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-bases-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RUN = '20261125T020000Z-3fa9c1';
const ACKED = '20261124T020000Z-0a0b0c';
const changes = { runId: RUN, acknowledged: ACKED, full: false, states: { users: RUN } };
const manifestWith = (extra: Record<string, unknown>) =>
  JSON.stringify({ manifestVersion: 1, resources: [], ...extra });
const writeManifest = (text: string) => writeFile(join(dir, 'manifest.json'), text);
const snapshot = () => writeFile(join(dir, stateFileOf('users', RUN)), 'a snapshot');

describe('the committed change state (the manifest)', () => {
  it('is what the manifest names', async () => {
    await writeManifest(manifestWith({ changes }));
    await snapshot();
    expect(await committedChanges(dir, { full: false })).toEqual(changes);
  });

  it('a first run (no manifest, no snapshot) has none', async () => {
    expect(await committedChanges(dir, { full: false })).toBeUndefined();
    // A manifest of a run without --changes, and no snapshot: still a first run.
    await writeManifest(manifestWith({}));
    expect(await committedChanges(dir, { full: false })).toBeUndefined();
    // The one state file of an rcs before run ids is not a snapshot of a run (bases.ts refuses it).
    await writeFile(join(dir, '.users.changes-state'), 'legacy');
    expect(await committedChanges(dir, { full: false })).toBeUndefined();
  });

  it('a manifest missing beside snapshots fails, naming the manifest, the snapshots and --full; nothing touched', async () => {
    await snapshot();
    await writeFile(join(dir, stateFileOf('teams', ACKED)), 'another');
    const error = await committedChanges(dir, { full: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangesStateError);
    expect((error as Error).message).toBe(
      `${join(dir, 'manifest.json')} is missing, but ${dir} holds change snapshots of earlier runs (${stateFileOf('teams', ACKED)}, ${stateFileOf('users', RUN)}): without it, which run was committed last is unknown, and comparing with nothing would report every record as an insert and remove the snapshot your next \`ack\` names. Nothing was changed; run with \`full\` to start over (every record an insert; reload the tables)`,
    );
    expect((await readdir(dir)).sort()).toEqual(
      [stateFileOf('teams', ACKED), stateFileOf('users', RUN)].sort(),
    );
  });

  it('names three snapshots at most', async () => {
    for (const tag of ['000001', '000002', '000003', '000004']) {
      await writeFile(join(dir, stateFileOf('users', `20261125T020000Z-${tag}`)), '');
    }
    await expect(committedChanges(dir, { full: false })).rejects.toThrow(
      /\(\.users\.changes-state\.20261125T020000Z-000001, [^,]+, \.users\.changes-state\.20261125T020000Z-000003, …\)/,
    );
  });

  it.each([
    ['cut short', manifestWith({ changes }).slice(0, 40), 'it is not JSON: cut short or edited'],
    ['emptied', '', 'it is not JSON: cut short or edited'],
    ['a list', '[]', 'it is not a manifest'],
    ['null', 'null', 'it is not a manifest'],
    [
      'of a run without --changes',
      manifestWith({}),
      'it was written by a run without `changes`, and names no change state',
    ],
    ['with changes that are not an object', manifestWith({ changes: 'x' }), 'its "changes"'],
    ['with changes null', manifestWith({ changes: null }), 'its "changes"'],
    ['without a run id', manifestWith({ changes: { ...changes, runId: 5 } }), 'its "changes"'],
    [
      'with a run id that is not one',
      manifestWith({ changes: { ...changes, runId: 'yesterday' } }),
      'its "changes"',
    ],
    [
      'with an acknowledged run that is not one',
      manifestWith({ changes: { ...changes, acknowledged: 'last' } }),
      'its "changes"',
    ],
    [
      'with an acknowledged run that is not text',
      manifestWith({ changes: { ...changes, acknowledged: 7 } }),
      'its "changes"',
    ],
    [
      'without states',
      manifestWith({ changes: { ...changes, states: undefined } }),
      'its "changes"',
    ],
    ['with states null', manifestWith({ changes: { ...changes, states: null } }), 'its "changes"'],
    [
      'with states a list',
      manifestWith({ changes: { ...changes, states: [RUN] } }),
      'its "changes"',
    ],
    [
      'with a state that is not a run id',
      manifestWith({ changes: { ...changes, states: { users: '../../etc' } } }),
      'its "changes"',
    ],
  ])('a manifest %s beside snapshots fails, naming why and --full', async (_, text, why) => {
    await writeManifest(text);
    await snapshot();
    const error = await committedChanges(dir, { full: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangesStateError);
    expect((error as Error).message).toContain(
      `${join(dir, 'manifest.json')} cannot be used (${why}`,
    );
    expect((error as Error).message).toMatch(/Nothing was changed; run with `full` to start over/);
    expect(await readFile(join(dir, 'manifest.json'), 'utf8')).toBe(text);
  });

  it('an acknowledged run null and full true are kept as they are', async () => {
    await writeManifest(manifestWith({ changes: { ...changes, acknowledged: null, full: true } }));
    expect(await committedChanges(dir, { full: false })).toEqual({
      ...changes,
      acknowledged: null,
      full: true,
    });
  });

  it('with --full the manifest is not read: missing, damaged or a link, the run starts over', async () => {
    await snapshot();
    expect(await committedChanges(dir, { full: true })).toBeUndefined();
    await writeManifest('{');
    expect(await committedChanges(dir, { full: true })).toBeUndefined();
  });

  it('a manifest that is a link is refused, and the file it points to is not read', async () => {
    const elsewhere = join(dir, 'planted.json');
    await writeFile(elsewhere, manifestWith({ changes }));
    await symlink(elsewhere, join(dir, 'manifest.json'));
    const error = await committedChanges(dir, { full: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect((error as Error).message).toMatch(/manifest\.json is a symbolic link, refused/);
  });

  it('a manifest larger than any rcs writes is damaged, and is not read whole', async () => {
    await writeManifest(`${manifestWith({ changes })}${' '.repeat(17 * 1024 * 1024)}x`);
    await snapshot();
    await expect(committedChanges(dir, { full: false })).rejects.toThrow(
      /cannot be used \(it is larger than any manifest rcs writes\)/,
    );
  });
});
