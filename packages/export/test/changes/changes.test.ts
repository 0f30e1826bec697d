import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ChangesStateError,
  ChangeTracker,
  canonicalJson,
  changesFileOf,
  contentHash,
  MERGE_FAN_IN,
  runReadBuffer,
  type TrackerOptions,
} from '../../src/changes/changes.js';
import { StateWriter, stateFileOf } from '../../src/changes/state-file.js';
import type { ApiRecord } from '../../src/formats/encoders.js';

let dir: string;
/** The last committed run of the test (what run.ts's manifest would name). */
let committed: string | undefined;
let runs = 0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-changes-'));
  committed = undefined;
});

/** A tracker of the next run, comparing with the last committed one. */
function trackerOf(resource: string, options: Partial<TrackerOptions> = {}): ChangeTracker {
  const runId = `20260101T${String(100000 + runs++).slice(-6)}Z-abcdef`;
  return new ChangeTracker(dir, resource, { runId, base: committed, filters: {}, ...options });
}

/** What run.ts does once the manifest names the tracker's snapshot. */
async function commit(tracker: ChangeTracker): Promise<void> {
  await tracker.commit();
  tracker.stateCommitted();
  committed = tracker.stateFile.split('.changes-state.')[1];
}

const stateOf = (): string => stateFileOf('users', committed!);

/**
 * A run's pages, then its end; what refused it (the base is read before the first page is kept,
 * so a base that cannot be used fails the run there, or at its end when it has no page).
 */
async function refusal(tracker: ChangeTracker, records: ApiRecord[]): Promise<unknown> {
  try {
    await tracker.add(records);
    await tracker.finish();
  } catch (error) {
    return error;
  }
  return undefined;
}
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lines of the users export's change file, parsed. */
async function changeLines(): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(dir, changesFileOf('users')), 'utf8');
  return text === ''
    ? []
    : text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
}

/** One run with --changes over `records` (in pages of 7), committed; returns the change lines. */
async function run(records: ApiRecord[], batchBytes?: number) {
  const tracker = trackerOf('users', batchBytes ? { batchBytes } : {});
  try {
    for (let i = 0; i < records.length; i += 7) await tracker.add(records.slice(i, i + 7));
    const spilled = tracker.runs;
    const result = await tracker.finish();
    await commit(tracker);
    return { result, lines: await changeLines(), spilled };
  } finally {
    await tracker.discard();
  }
}

const user = (id: string, name: string, extra: Record<string, unknown> = {}): ApiRecord => ({
  id,
  firstName: name,
  teamIds: ['t1'],
  ...extra,
});

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
    );
  });
  it('is the same for any key order, and differs for any value change (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(contentHash(reversed)).toBe(contentHash(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
  });
});

/** canonicalJson and contentHash as they were first written: states written then must match. */
function canonicalJsonBefore(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJsonBefore).join(',')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((k) => object[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJsonBefore(object[k])}`).join(',')}}`;
}

describe('canonicalJson is the text (and contentHash the hash) of the first version', () => {
  it('for any JSON value, with undefined properties and elements, any number of keys', () => {
    const withUndefined = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue(),
        fc.constant(undefined),
        fc.array(tie('value')),
        fc.dictionary(fc.string(), tie('value'), { maxKeys: 40 }),
      ),
    })).value;
    fc.assert(
      fc.property(withUndefined, (value) => {
        expect(canonicalJson(value)).toBe(canonicalJsonBefore(value));
        const before = createHash('sha256')
          .update(canonicalJsonBefore(value))
          .digest('base64url')
          .slice(0, 22);
        expect(contentHash(value)).toBe(before);
      }),
      { numRuns: 300 },
    );
  });
  it('sorts many keys (past the in-place sort) in UTF-16 order', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `k${(i * 37) % 50}`).concat([
      'é',
      'Z',
      '😀',
      '',
    ]);
    const object = Object.fromEntries(keys.map((k) => [k, k]));
    expect(canonicalJson(object)).toBe(canonicalJsonBefore(object));
    const small = Object.fromEntries(['é', 'Z', '😀', '', 'b', 'a'].map((k) => [k, 1]));
    expect(canonicalJson(small)).toBe(canonicalJsonBefore(small));
  });
});

describe('ChangeTracker', () => {
  const base = Array.from({ length: 40 }, (_, i) =>
    user(`u${String(i).padStart(3, '0')}`, `name ${i}`),
  ).reverse();

  it('first run: every record an insert, in id order, carrying the record', async () => {
    const { result, lines } = await run(base);
    expect(result).toMatchObject({ inserts: 40, updates: 0, deletes: 0 });
    expect(lines.map((l) => l.id)).toEqual(base.map((r) => r.id).sort());
    expect(lines[0]).toEqual({ op: 'insert', id: 'u000', record: user('u000', 'name 0') });
  });

  it('inserts, updates and deletes exactly; a key-order change is not an update', async () => {
    await run(base);
    const next = base
      .filter((r) => r.id !== 'u005' && r.id !== 'u039')
      .map((r) => {
        if (r.id === 'u010') return user('u010', 'changed');
        // Same content, properties in another order: not a change.
        if (r.id === 'u020') return { teamIds: ['t1'], firstName: 'name 20', id: 'u020' };
        // A nested change is an update.
        if (r.id === 'u030') return user('u030', 'name 30', { teamIds: ['t2'] });
        return r;
      });
    next.push(user('u100', 'new'), user('a-first', 'new too'));
    const { result, lines } = await run(next);
    expect(lines).toEqual([
      { op: 'insert', id: 'a-first', record: user('a-first', 'new too') },
      { op: 'delete', id: 'u005' },
      { op: 'update', id: 'u010', record: user('u010', 'changed') },
      { op: 'update', id: 'u030', record: user('u030', 'name 30', { teamIds: ['t2'] }) },
      { op: 'delete', id: 'u039' },
      { op: 'insert', id: 'u100', record: user('u100', 'new') },
    ]);
    expect(result).toMatchObject({ inserts: 2, updates: 2, deletes: 2 });
    // Unchanged third run: an empty file.
    expect((await run(next)).lines).toEqual([]);
  });

  it('the merge reads many runs in smaller pieces: 64 KB down to 4 KB, about 4 MB in all', () => {
    expect(runReadBuffer(0)).toBe(64 * 1024);
    expect(runReadBuffer(1)).toBe(64 * 1024);
    expect(runReadBuffer(32)).toBe(64 * 1024);
    expect(runReadBuffer(200)).toBe(10_485);
    expect(runReadBuffer(200) * 2 * 200).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(runReadBuffer(10_000)).toBe(4 * 1024);
  });

  it('spills sorted runs to disk past the batch size and merges them to the same answer', async () => {
    const many = Array.from({ length: 500 }, (_, i) => user(`id-${(i * 7919) % 500}`, `n${i}`));
    const inMemory = await run(many);
    await rm(join(dir, stateOf()));
    committed = undefined;
    const spilled = await run(many, 2_000);
    expect(inMemory.spilled).toBe(0);
    expect(spilled.spilled).toBeGreaterThan(10);
    expect(spilled.lines).toEqual(inMemory.lines);
    // The run files are gone; only the change file and the state remain.
    expect((await readdir(dir)).sort()).toEqual([stateOf(), changesFileOf('users')].sort());
  });

  it('past MERGE_FAN_IN runs of a level, they are merged into one: few files, same answer', async () => {
    const many = Array.from({ length: 900 }, (_, i) => user(`id-${(i * 7919) % 900}`, `n${i}`));
    const inMemory = await run(many);
    await rm(join(dir, stateOf()));
    committed = undefined;
    const tracker = trackerOf('users', { batchBytes: 200 });
    let most = 0;
    for (let i = 0; i < many.length; i += 7) {
      await tracker.add(many.slice(i, i + 7));
      most = Math.max(most, tracker.runFiles);
    }
    // 129 batches (a page of 7 is over 200 bytes): four merges of 32 level-0 runs into four
    // level-1 runs, then one level-0 run.
    expect(tracker.runs).toBe(129);
    expect(most).toBeLessThan(2 * MERGE_FAN_IN);
    expect(tracker.runFiles).toBe(5);
    await tracker.finish();
    await commit(tracker);
    expect(await changeLines()).toEqual(inMemory.lines);
    expect((await readdir(dir)).sort()).toEqual([stateOf(), changesFileOf('users')].sort());
  });

  it('two trackers spilling and merging at once in one directory give exact changes', async () => {
    // A library caller may run two exports into one directory at once: their runs never mix.
    const many = (prefix: string) =>
      Array.from({ length: 500 }, (_, i) => user(`${prefix}-${(i * 7919) % 500}`, `n${i}`));
    const trackers = ['users', 'teams'].map((resource) => trackerOf(resource, { batchBytes: 200 }));
    await Promise.all(
      trackers.map(async (tracker, t) => {
        const records = many(t === 0 ? 'u' : 't');
        for (let i = 0; i < records.length; i += 7) await tracker.add(records.slice(i, i + 7));
        const result = await tracker.finish();
        await tracker.commit();
        tracker.stateCommitted();
        expect(result.inserts).toBe(500);
      }),
    );
    // Past MERGE_FAN_IN spills each: the merge path ran in both.
    expect(trackers.every((t) => t.runs > MERGE_FAN_IN)).toBe(true);
    expect((await changeLines()).map((l) => l.id)).toEqual(
      Array.from({ length: 500 }, (_, i) => `u-${i}`).sort(),
    );
  });

  it('a record exported twice is still refused when its copies were merged apart', async () => {
    const records = Array.from({ length: 300 }, (_, i) => user(`id-${i}`, `n${i}`));
    records.push(user('id-5', 'again'));
    const tracker = trackerOf('users', { batchBytes: 200 });
    try {
      for (let i = 0; i < records.length; i += 7) await tracker.add(records.slice(i, i + 7));
      expect(tracker.runs).toBeGreaterThan(MERGE_FAN_IN);
      await expect(tracker.finish()).rejects.toThrow(/record "id-5" was exported twice/);
    } finally {
      await tracker.discard();
    }
    expect((await readdir(dir)).filter((f) => f.includes('changes-run'))).toEqual([]);
  });

  it('all deleted: every previous record is a delete', async () => {
    await run(base);
    const { lines } = await run([]);
    expect(lines).toHaveLength(40);
    expect(lines.every((l) => l.op === 'delete' && !('record' in l))).toBe(true);
  });

  it('ids that need JSON escaping round-trip through the state', async () => {
    const odd = [user('tab\there', 'a'), user('quote"and\nline', 'b'), user('李', 'c')];
    await run(odd);
    const { lines } = await run([...odd.slice(1), user('tab\there', 'changed')]);
    expect(lines).toEqual([
      { op: 'update', id: 'tab\there', record: user('tab\there', 'changed') },
    ]);
  });

  it('a state truncated (at a line boundary too), edited, appended to or foreign is refused, naming the file and --full', async () => {
    const records = base.slice(0, 30);
    await run(records);
    const state = join(dir, stateOf());
    const good = await readFile(state, 'utf8');
    const lines = good.split('\n');
    const [otherHash] = /[A-Za-z0-9_-]{22}$/.exec(lines[5]!)!;
    const cases: [string, RegExp][] = [
      // `head -n 21` of the state, cut at a line boundary.
      [`${lines.slice(0, 21).join('\n')}\n`, /20 records where its header says 30: truncated/],
      [good.slice(0, -10), /cut short/],
      [`${good}"zzz"\tAAAAAAAAAAAAAAAAAAAAAA\n`, /31 records where its header says 30/],
      [
        good.replace(/[A-Za-z0-9_-]{22}\n/, `${otherHash}\n`),
        /checksum does not match its records: edited/,
      ],
      [
        good.replace('"resource":"users"', '"resource":"teams"'),
        /change state of another export \("teams", not users\)/,
      ],
      [good.replace(/\t[A-Za-z0-9_-]{22}\n/, '\tshort\n'), /line 2: not an id and a hash/],
      [
        `rcs-changes-state 1 "users"\n"u1"\tAAAAAAAAAAAAAAAAAAAAAA\n`,
        /written by an earlier rcs and cannot prove its integrity/,
      ],
      ['', /empty/],
    ];
    for (const [text, message] of cases) {
      await writeFile(state, text);
      const tracker = trackerOf('users');
      const error = await refusal(tracker, records);
      await tracker.discard();
      expect(error, message.source).toBeInstanceOf(ChangesStateError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(state);
      expect((error as Error).message).toMatch(/run with `full` to start over/);
      // Refused: the state on disk is the damaged one, and no new snapshot was left behind.
      expect(await readFile(state, 'utf8')).toBe(text);
      expect((await readdir(dir)).filter((f) => f.includes('changes-state'))).toEqual([stateOf()]);
    }
  });

  it('a state of other filters is refused, naming both listings', async () => {
    const tracks = [user('t1', 'a'), user('t2', 'b')];
    const first = trackerOf('tracks', { filters: { archived: 'include' } });
    await first.add(tracks);
    await first.finish();
    await commit(first);
    const second = trackerOf('tracks', { filters: { archived: 'only' } });
    expect(String(await refusal(second, []))).toMatch(
      /taken with `archived` include, this run lists tracks with `archived` only.*`full`/,
    );
    await second.discard();
  });

  it('--allow-drift withholds every delete: the records stay in the state until a run without it', async () => {
    await run(base);
    const tracker = trackerOf('users', { withholdDeletes: true });
    await tracker.add(base.slice(5));
    const result = await tracker.finish();
    await commit(tracker);
    expect(result).toMatchObject({ inserts: 0, updates: 0, deletes: 0, deletesWithheld: 5 });
    // The next exact run reports them.
    const { result: exact } = await run(base.slice(5));
    expect(exact).toMatchObject({ deletes: 5, deletesWithheld: 0 });
  });

  it('a missing base snapshot is refused, naming the run and --full', async () => {
    committed = '20250101T000000Z-000000';
    const tracker = trackerOf('users');
    expect(String(await refusal(tracker, base))).toMatch(
      /changes-state\.20250101T000000Z-000000 is missing.*pruned or never committed.*`full`/,
    );
    await tracker.discard();
  });

  it('a second run keeps no text of a record unchanged since its base: its run files hold ids and hashes', async () => {
    const many = Array.from({ length: 300 }, (_, i) => user(`id-${(i * 7919) % 300}`, `n${i}`));
    await run(many);
    const next = many.map((r) => (r.id === 'id-7' ? user('id-7', 'changed') : r));
    next.push(user('id-new', 'new'));
    const tracker = trackerOf('users', { batchBytes: 2_000 });
    for (let i = 0; i < next.length; i += 7) await tracker.add(next.slice(i, i + 7));
    // What is on disk before the end: sorted runs of "<id>\t<hash>\t<record or nothing>".
    const runFiles = (await readdir(dir)).filter((f) => f.includes('.changes-run'));
    expect(runFiles.length).toBeGreaterThan(0);
    const lines = (await Promise.all(runFiles.map((f) => readFile(join(dir, f), 'utf8')))).flatMap(
      (text) => text.split('\n').slice(0, -1),
    );
    const withText = lines.filter((line) => !line.endsWith('\t'));
    expect(withText.map((line) => JSON.parse(line.split('\t')[0]!)).sort()).toEqual(
      ['id-7', 'id-new'].filter((id) => lines.some((l) => l.startsWith(JSON.stringify(id)))),
    );
    expect(lines.length).toBeGreaterThan(250);
    const result = await tracker.finish();
    await commit(tracker);
    expect(result).toMatchObject({ inserts: 1, updates: 1, deletes: 0 });
    expect(await changeLines()).toEqual([
      { op: 'update', id: 'id-7', record: user('id-7', 'changed') },
      { op: 'insert', id: 'id-new', record: user('id-new', 'new') },
    ]);
  });

  it.each([
    ['held in memory', undefined],
    ['spilled to run files', 50],
  ])(
    'a changed record whose hash the base has under another id fails the export, naming it (%s)',
    async (_, batchBytes) => {
      // Only a content hash sharing its 64-bit table hash with one of the base's (id-set.ts)
      // could do this; a base written to that end
      // shows that the export then fails rather than writing a change without its record.
      committed = '20250101T000000Z-000000';
      const writer = await StateWriter.create(join(dir, stateOf()));
      await writer.add('"a"', contentHash(user('b', 'new')));
      await writer.finish({ resource: 'users', runId: committed, filters: {} });
      const tracker = trackerOf('users', batchBytes ? { batchBytes } : {});
      expect(String(await refusal(tracker, [user('b', 'new'), user('c', 'new')]))).toMatch(
        /users: record "b" changed, but its content hash matched a record of run 20250101T000000Z-000000 and its text was not kept; run again with `full`/,
      );
      expect(tracker.runs).toBe(batchBytes ? 1 : 0);
      await tracker.discard();
      expect((await readdir(dir)).filter((f) => !f.includes('changes-state'))).toEqual([]);
    },
  );

  it('a record exported twice is an error, not a silent double', async () => {
    const tracker = trackerOf('users');
    await tracker.add([user('x', '1'), user('x', '2')]);
    await expect(tracker.finish()).rejects.toThrow(/record "x" was exported twice/);
    await tracker.discard();
    expect(await readdir(dir)).toEqual([]);
  });
});
