import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChangesStateError,
  type ExpectedState,
  pruneSnapshots,
  readState,
  type StateEntry,
  StateWriter,
  stateFileOf,
} from '../../src/changes/state-file.js';
import { UnsafeFileError } from '../../src/files/safe-open.js';
import { openFilesUnder } from '../support/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A content hash as the change state stores it (22 base64url characters). */
function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

const TRACKS: ExpectedState = { resource: 'tracks', runId: 'r1', filters: {} };

/** Writes a committed-looking snapshot of `ids` (in the given order) for `expected`. */
async function writeState(ids: string[], expected: ExpectedState = TRACKS): Promise<string> {
  const path = join(dir, stateFileOf(expected.resource, expected.runId));
  const writer = await StateWriter.create(path);
  for (const id of ids) await writer.add(JSON.stringify(id), hashOf(id));
  await writer.finish(expected);
  return path;
}

async function readAll(path: string, expected: ExpectedState = TRACKS) {
  const entries: StateEntry[] = [];
  for await (const entry of readState(path, expected)) entries.push(entry);
  return entries;
}

/** The error reading `path` ends with (every entry read first, as a run does). */
async function readError(path: string, expected: ExpectedState = TRACKS): Promise<Error> {
  const error = await readAll(path, expected).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChangesStateError);
  return error as Error;
}

/** Rewrites the header line in place (its size kept) as a hand edit or another program would. */
async function editHeader(path: string, edit: (line: string) => string): Promise<void> {
  const bytes = await readFile(path);
  const headerEnd = bytes.indexOf(0x0a) + 1;
  const line = bytes.subarray(0, headerEnd - 1).toString('utf8');
  const edited = Buffer.from(edit(line.trimEnd()).padEnd(headerEnd - 1, ' '), 'utf8');
  expect(edited.byteLength).toBe(headerEnd - 1);
  edited.copy(bytes, 0);
  await writeFile(path, bytes);
}

/** Edits the header's JSON. */
async function editHeaderJson(
  path: string,
  edit: (header: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  await editHeader(path, (line) => {
    const at = line.indexOf('{');
    return `${line.slice(0, at)}${JSON.stringify(edit(JSON.parse(line.slice(at))))}`;
  });
}

describe('change state file', () => {
  it('reads back every record it was given, in id order, with its hash', async () => {
    const ids = ['a', 'b "quoted"', 'c\ttab', 'd\u00e9', 'e\u{1f600}'];
    const path = await writeState(ids);
    expect(await readAll(path)).toEqual(
      ids.map((id) => ({ id, idJson: JSON.stringify(id), hash: hashOf(id) })),
    );
  });

  it('an empty listing is a state of no records', async () => {
    expect(await readAll(await writeState([]))).toEqual([]);
  });

  it('reads back a state of many megabytes whole and in order', async () => {
    // Far more than any one write or read: every record must come back once, in place.
    const ids = Array.from({ length: 60_000 }, (_, i) => `record-${String(i).padStart(6, '0')}`);
    const entries = await readAll(await writeState(ids));
    expect(entries.length).toBe(ids.length);
    expect(entries.map((e) => e.id)).toEqual(ids);
    expect(entries.every((e) => e.hash === hashOf(e.id))).toBe(true);
  });

  it('finish returns the header it wrote: the count and the checksum of the records', async () => {
    const path = join(dir, stateFileOf('tracks', 'r1'));
    const writer = await StateWriter.create(path);
    await writer.add('"a"', hashOf('a'));
    const header = await writer.finish(TRACKS);
    expect(header).toMatchObject({ ...TRACKS, count: 1 });
    const body = (await readFile(path)).subarray((await readFile(path)).indexOf(0x0a) + 1);
    expect(header.sha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('leaves no file open once written, read whole, read in part or refused', async () => {
    const path = await writeState(['a', 'b', 'c']);
    await readAll(path);
    for await (const _ of readState(path, TRACKS)) break;
    await readError(path, { ...TRACKS, runId: 'r2' });
    await writeFile(path, (await readFile(path, 'utf8')).replace(hashOf('b'), hashOf('B')));
    await readError(path);
    const open = await openFilesUnder(dir);
    if (open !== undefined) expect(open).toEqual([]);
  });

  it('a snapshot is never written over: its run id is new', async () => {
    const path = await writeState(['a']);
    await expect(StateWriter.create(path)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('finishing twice is an error naming the file', async () => {
    const path = join(dir, stateFileOf('tracks', 'r1'));
    const writer = await StateWriter.create(path);
    await writer.finish(TRACKS);
    await expect(writer.finish(TRACKS)).rejects.toThrow(`${path}: finished twice`);
  });

  it('discard removes the snapshot, whether or not it was finished, and never throws', async () => {
    const unfinished = await StateWriter.create(join(dir, stateFileOf('tracks', 'r1')));
    await unfinished.add('"a"', hashOf('a'));
    await unfinished.discard();
    const finished = await StateWriter.create(join(dir, stateFileOf('tracks', 'r2')));
    await finished.finish({ ...TRACKS, runId: 'r2' });
    await finished.discard();
    await finished.discard();
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    ['ASCII', 'a', 355],
    ['three-byte UTF-8', '\u20ac', 115],
  ])(
    'a header either fits whole or is refused when written (%s export names)',
    async (_, unit, from) => {
      // Export names growing past the header's fixed size, with run ids of three lengths so that a
      // three-byte character meets the end at each of its bytes: every header the writer accepts
      // reads back, and the writer refuses the rest (a reader must never meet a header cut short).
      for (const runId of ['r1', 'r1x', 'r1xx']) {
        let accepted = 0;
        for (let length = from; ; length++) {
          const expected = { resource: unit.repeat(length), runId, filters: {} };
          const path = join(dir, stateFileOf(`export-${length}`, runId));
          const writer = await StateWriter.create(path);
          await writer.add('"a"', hashOf('a'));
          const error = await writer.finish(expected).then(
            () => undefined,
            (e: Error) => e,
          );
          if (error) {
            expect(error.message).toMatch(/^change state header too long: /);
            break;
          }
          expect(await readAll(path, expected)).toHaveLength(1);
          accepted++;
          await rm(path);
        }
        expect(accepted).toBeGreaterThan(0);
      }
    },
  );

  describe('refuses a state that cannot prove it is the one to compare with, naming the file and --full', () => {
    it('a missing state', async () => {
      const path = join(dir, stateFileOf('tracks', 'r1'));
      const error = await readError(path);
      expect(error.name).toBe('ChangesStateError');
      expect(error.message).toBe(
        `${path} is missing: the change state of run r1 was pruned or never committed in this directory; run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('but a path it cannot open for another reason is reported as that, not as missing', async () => {
      await writeFile(join(dir, 'a-file'), '');
      const error = await readAll(join(dir, 'a-file', 'state'), TRACKS).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(ChangesStateError);
      expect(error).toMatchObject({ code: 'ENOTDIR' });
    });

    it('an empty file, and one cut inside its header', async () => {
      const path = await writeState(['a', 'b']);
      await truncate(path, 100);
      expect((await readError(path)).message).toBe(
        `${path} is damaged (no complete header); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
      await truncate(path, 0);
      expect((await readError(path)).message).toContain(`${path} is damaged (empty)`);
    });

    it('a header whose line does not end where the header ends', async () => {
      const path = await writeState(['a', 'b']);
      const bytes = await readFile(path);
      const headerEnd = bytes.indexOf(0x0a);
      bytes[headerEnd] = 0x20; // the header's newline overwritten
      await writeFile(path, bytes);
      expect((await readError(path)).message).toContain('is damaged (no complete header)');
    });

    it.each([
      ['stray text before it', (line: string) => `x${line}`],
      ['stray text after it', (line: string) => `${line} x`],
      ['a format version this rcs does not know', (line: string) => line.replace(' 2 ', ' 3 ')],
      ['its JSON broken', (line: string) => line.replace('{', '{,')],
      ['no JSON', (line: string) => line.slice(0, line.indexOf('{'))],
    ])('a header with %s', async (_, edit) => {
      const path = await writeState(['a', 'b']);
      await editHeader(path, edit);
      expect((await readError(path)).message).toBe(
        `${path} is damaged (not a change state header); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('a state written by an earlier rcs, which has no checksum', async () => {
      const path = await writeState(['a']);
      await editHeader(path, (line) => line.replace(' 2 ', ' 1 '));
      expect((await readError(path)).message).toBe(
        `${path} was written by an earlier rcs and cannot prove its integrity; run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('the state of another export', async () => {
      const path = await writeState(['a'], { resource: 'users', runId: 'r1', filters: {} });
      expect((await readError(path, TRACKS)).message).toBe(
        `${path} is the change state of another export ("users", not tracks); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('a state of another run than its name says (renamed or copied)', async () => {
      const path = await writeState(['a']);
      const error = await readError(path, { ...TRACKS, runId: 'r2' });
      expect(error.message).toBe(
        `${path} holds run "r1", not r2 as its name says; run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it.each([
      [{}, { archived: 'only' as const }, 'no filter', '`archived` only'],
      [{ archived: 'only' as const }, {}, '`archived` only', 'no filter'],
      [
        { archived: 'include' as const },
        { archived: 'only' as const },
        '`archived` include',
        '`archived` only',
      ],
    ])('a state taken with other filters (%j, this run %j)', async (was, now, wasText, nowText) => {
      const path = await writeState(['a'], { ...TRACKS, filters: was });
      expect((await readError(path, { ...TRACKS, filters: now })).message).toBe(
        `${path} was taken with ${wasText}, this run lists tracks with ${nowText}: comparing them would report the records of one listing as deleted from the other; run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('but the same filters are the same listing', async () => {
      const filters = { archived: 'include' as const };
      const path = await writeState(['a'], { ...TRACKS, filters });
      expect(await readAll(path, { ...TRACKS, filters })).toHaveLength(1);
    });

    it.each([
      ['no count', ({ count: _, ...h }: Record<string, unknown>) => h],
      ['a count that is text', (h: Record<string, unknown>) => ({ ...h, count: String(h.count) })],
      ['no checksum', ({ sha256: _, ...h }: Record<string, unknown>) => h],
      ['a checksum in a list', (h: Record<string, unknown>) => ({ ...h, sha256: [h.sha256] })],
      [
        'a checksum with a stray first character',
        (h: Record<string, unknown>) => ({ ...h, sha256: `x${h.sha256}` }),
      ],
      [
        'a checksum with a stray last character',
        (h: Record<string, unknown>) => ({ ...h, sha256: `${h.sha256}x` }),
      ],
      [
        'a checksum in capitals',
        (h: Record<string, unknown>) => ({ ...h, sha256: String(h.sha256).toUpperCase() }),
      ],
    ])('a header with %s', async (_, edit) => {
      const path = await writeState(['a', 'b']);
      await editHeaderJson(path, edit);
      expect((await readError(path)).message).toBe(
        `${path} is damaged (header without count and checksum); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('a state truncated at a line boundary', async () => {
      const path = await writeState(['a', 'b', 'c']);
      const text = await readFile(path, 'utf8');
      await truncate(
        path,
        Buffer.byteLength(text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1)),
      );
      expect((await readError(path)).message).toBe(
        `${path} is damaged (2 records where its header says 3: truncated or appended to); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('a header whose count was edited', async () => {
      const path = await writeState(['a', 'b']);
      await editHeaderJson(path, (h) => ({ ...h, count: 3 }));
      expect((await readError(path)).message).toContain(
        'is damaged (2 records where its header says 3: truncated or appended to)',
      );
    });

    it('a state with a line appended', async () => {
      const path = await writeState(['a', 'b']);
      await writeFile(path, `${JSON.stringify('c')}\t${hashOf('c')}\n`, { flag: 'a' });
      expect((await readError(path)).message).toContain(
        'is damaged (3 records where its header says 2: truncated or appended to)',
      );
    });

    it('a state with a record edited', async () => {
      const path = await writeState(['a', 'b']);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.replace(hashOf('b'), hashOf('B')));
      expect((await readError(path)).message).toBe(
        `${path} is damaged (its checksum does not match its records: edited); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });

    it('a state cut inside a line names that line', async () => {
      const path = await writeState(['a', 'b', 'c']);
      const size = (await readFile(path)).byteLength;
      await truncate(path, size - 3);
      // Line 1 is the header, the records are lines 2 to 4.
      expect((await readError(path)).message).toContain('is damaged (line 4: cut short)');
    });

    it.each([
      ['an id that is not text', '17', hashOf('17')],
      ['an id that is not JSON', 'abc', hashOf('abc')],
      ['an empty id', '', hashOf('')],
      ['a hash that is too short', '"b"', hashOf('b').slice(1)],
      ['a hash that is too long', '"b"', `${hashOf('b')}x`],
      ['a hash with a character outside base64url', '"b"', `${hashOf('b').slice(1)}+`],
    ])('a line with %s, even under a matching checksum', async (_, idJson, hash) => {
      const path = join(dir, stateFileOf('tracks', 'r1'));
      const writer = await StateWriter.create(path);
      await writer.add('"a"', hashOf('a'));
      await writer.add(idJson, hash);
      await writer.finish(TRACKS);
      expect((await readError(path)).message).toContain(
        'is damaged (line 3: not an id and a hash)',
      );
    });

    it.each([
      ['out of order', ['a', 'c', 'b']],
      ['repeated', ['a', 'b', 'b']],
    ])('ids %s', async (_, ids) => {
      const path = await writeState(ids);
      expect((await readError(path)).message).toBe(
        `${path} is damaged (line 4: ids out of order); run with \`full\` to start over (every record an insert; reload the tables)`,
      );
    });
  });
});

describe('pruning snapshots', () => {
  it("removes this export's snapshots other than those kept, and nothing else", async () => {
    const names = [
      stateFileOf('tracks', 'r1'),
      stateFileOf('tracks', 'r2'),
      stateFileOf('tracks', 'r3'),
      stateFileOf('users', 'r1'),
      'tracks.jsonl',
      'manifest.json',
    ];
    for (const name of names) await writeFile(join(dir, name), '');
    await pruneSnapshots(dir, 'tracks', new Set(['r2']));
    expect((await readdir(dir)).sort()).toEqual(
      [
        stateFileOf('tracks', 'r2'),
        stateFileOf('users', 'r1'),
        'tracks.jsonl',
        'manifest.json',
      ].sort(),
    );
  });

  it('a directory that is gone has nothing to prune', async () => {
    await expect(pruneSnapshots(join(dir, 'gone'), 'tracks', new Set())).resolves.toBeUndefined();
  });
});

describe('a link planted in place of a snapshot', () => {
  it('is refused when read, and the file it points to decides nothing', async () => {
    const elsewhere = await writeState(['a', 'b']);
    const path = join(dir, stateFileOf('tracks', 'r2'));
    await symlink(elsewhere, path);
    const error = await readAll(path, { ...TRACKS, runId: 'r2' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect((error as Error).message).toMatch(/changes-state\.r2 is a symbolic link, refused/);
  });

  it('is refused when written, and the file it points to is left as it was', async () => {
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'precious');
    const path = join(dir, stateFileOf('tracks', 'r3'));
    await symlink(victim, path);
    await expect(StateWriter.create(path)).rejects.toThrow(UnsafeFileError);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });
});
