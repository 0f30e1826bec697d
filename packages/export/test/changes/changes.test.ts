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
  stateFileOf,
} from '../../src/changes/changes.js';
import type { ApiRecord } from '../../src/formats/encoders.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-changes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One run with --changes over `records` (in pages of 7), committed; returns the change lines. */
async function run(records: ApiRecord[], batchBytes?: number) {
  const tracker = new ChangeTracker(dir, 'users', batchBytes ? { batchBytes } : {});
  try {
    for (let i = 0; i < records.length; i += 7) await tracker.add(records.slice(i, i + 7));
    const spilled = tracker.runs;
    const result = await tracker.finish();
    await tracker.commit();
    const text = await readFile(join(dir, changesFileOf('users')), 'utf8');
    const lines =
      text === ''
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l));
    return { result, lines, spilled };
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
    await rm(join(dir, stateFileOf('users')));
    const spilled = await run(many, 2_000);
    expect(inMemory.spilled).toBe(0);
    expect(spilled.spilled).toBeGreaterThan(10);
    expect(spilled.lines).toEqual(inMemory.lines);
    // The run files are gone; only the change file and the state remain.
    expect((await readdir(dir)).sort()).toEqual(
      [stateFileOf('users'), changesFileOf('users')].sort(),
    );
  });

  it('past MERGE_FAN_IN runs of a level, they are merged into one: few files, same answer', async () => {
    const many = Array.from({ length: 900 }, (_, i) => user(`id-${(i * 7919) % 900}`, `n${i}`));
    const inMemory = await run(many);
    await rm(join(dir, stateFileOf('users')));
    const tracker = new ChangeTracker(dir, 'users', { batchBytes: 200 });
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
    await tracker.commit();
    const text = await readFile(join(dir, changesFileOf('users')), 'utf8');
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(inMemory.lines);
    expect((await readdir(dir)).sort()).toEqual(
      [stateFileOf('users'), changesFileOf('users')].sort(),
    );
  });

  it('two trackers spilling and merging at once in one directory give exact changes', async () => {
    // A library caller may run two exports into one directory at once: their runs never mix.
    const many = (prefix: string) =>
      Array.from({ length: 500 }, (_, i) => user(`${prefix}-${(i * 7919) % 500}`, `n${i}`));
    const trackers = ['users', 'teams'].map(
      (resource) => new ChangeTracker(dir, resource, { batchBytes: 200 }),
    );
    await Promise.all(
      trackers.map(async (tracker, t) => {
        const records = many(t === 0 ? 'u' : 't');
        for (let i = 0; i < records.length; i += 7) await tracker.add(records.slice(i, i + 7));
        const result = await tracker.finish();
        await tracker.commit();
        expect(result.inserts).toBe(500);
      }),
    );
    // Past MERGE_FAN_IN spills each: the merge path ran in both.
    expect(trackers.every((t) => t.runs > MERGE_FAN_IN)).toBe(true);
    const users = await readFile(join(dir, changesFileOf('users')), 'utf8');
    expect(
      users
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(Array.from({ length: 500 }, (_, i) => `u-${i}`).sort());
  });

  it('a record exported twice is still refused when its copies were merged apart', async () => {
    const records = Array.from({ length: 300 }, (_, i) => user(`id-${i}`, `n${i}`));
    records.push(user('id-5', 'again'));
    const tracker = new ChangeTracker(dir, 'users', { batchBytes: 200 });
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

  it('a damaged or foreign state is refused, naming the file and the line', async () => {
    await run(base);
    const state = join(dir, stateFileOf('users'));
    const good = await readFile(state, 'utf8');
    const cases: [string, RegExp][] = [
      [good.replace('"users"', '"teams"'), /line 1: not a change state of this export/],
      [good.replace(/\t[A-Za-z0-9_-]{22}\n/, '\tshort\n'), /line 2: not an id and a hash/],
      ['', /line 1: empty/],
    ];
    for (const [text, message] of cases) {
      await writeFile(state, text);
      const tracker = new ChangeTracker(dir, 'users');
      await tracker.add(base);
      const error = await tracker.finish().catch((e: unknown) => e);
      await tracker.discard();
      expect(error).toBeInstanceOf(ChangesStateError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(state);
      // Refused: the state on disk is the damaged one, not replaced.
      expect(await readFile(state, 'utf8')).toBe(text);
    }
  });

  it('a record exported twice is an error, not a silent double', async () => {
    const tracker = new ChangeTracker(dir, 'users');
    await tracker.add([user('x', '1'), user('x', '2')]);
    await expect(tracker.finish()).rejects.toThrow(/record "x" was exported twice/);
    await tracker.discard();
    expect(await readdir(dir)).toEqual([]);
  });
});
