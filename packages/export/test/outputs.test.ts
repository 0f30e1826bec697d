/**
 * Where an export's pages go (outputs.ts), as a user finds them: the files of a directory run
 * (the items child table of real-call sessions, the CSV and Parquet settings) and the bytes a
 * stream receives (`out` -: header once, backpressure, a stream that closes early).
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { ExportError, type ExportOptions, planExport } from '@rcs/export';
import { describe, expect, it, vi } from 'vitest';
import { AtomicFile } from '../src/files/atomic-file.js';
import { exportToDirectory, exportToStream } from '../src/run.js';
import { bytesAndHash, fakeService, item, session } from './support/fake-service.js';
import { footerOf, readParquet } from './support/parquet-reader.js';

const ITEMS_HEADER = 'sessionId,itemIndex,name,solved,explanation,suggestion,itemScore\r\n';

/** A turn of the event loop: what follows from answers already in has happened by then. */
const aTurn = () => new Promise<void>((r) => setImmediate(r));

const tmp = () => mkdtemp(join(tmpdir(), 'rcs-outputs-'));

const plan = (options: Partial<ExportOptions>) =>
  planExport({ resources: ['real-call-sessions', 'teams'], concurrency: 2, ...options });

const deps = (client: ReturnType<typeof fakeService>['client']) => ({
  client,
  signal: new AbortController().signal,
  version: 'test',
});

/**
 * 101 sessions (two pages of 100): items on both pages, and sessions whose analysis has no
 * items list (missing, null, no `items`, not an array), which give no item rows.
 */
const SESSIONS = Array.from({ length: 101 }, (_, i) => {
  const n = i + 1;
  if (n === 1) return session(n, { score: 80, items: [item('@opening', 1), item('close', 0.5)] });
  if (n === 2) return session(n, undefined);
  if (n === 3) return session(n, null);
  if (n === 4) return session(n, { score: 10 });
  if (n === 5) return session(n, { score: 10, items: 'none' });
  if (n === 101) return session(n, { score: 99, items: [item('recap', 0.25)] });
  return session(n, { score: 50, items: [] });
});
const TEAMS = [
  { id: 't1', name: '=SUM(1)' },
  { id: 't2', name: 'Sales' },
];

describe('the items child table of real-call sessions (directory mode)', () => {
  it('CSV: one row per analysis item of every page, its header once, its rows counted in the manifest', async () => {
    const dir = await tmp();
    const service = fakeService({ 'real-call-sessions': SESSIONS, teams: TEAMS });
    const manifest = await exportToDirectory(
      plan({ format: 'csv', out: dir }),
      deps(service.client),
    );
    expect((await readdir(dir)).sort()).toEqual([
      'manifest.json',
      'real-call-session-items.csv',
      'real-call-sessions.csv',
      'teams.csv',
    ]);
    // Formula neutralisation (the default) applies to the items table too.
    expect(await readFile(join(dir, 'real-call-session-items.csv'), 'utf8')).toBe(
      `${ITEMS_HEADER}s1,0,'@opening,solved,,,1\r\ns1,1,close,solved,,,0.5\r\ns101,0,recap,solved,,,0.25\r\n`,
    );
    const [sessions, teams] = manifest.resources;
    expect(sessions?.items).toStrictEqual({
      file: 'real-call-session-items.csv',
      count: 3,
      ...(await bytesAndHash(join(dir, 'real-call-session-items.csv'))),
    });
    expect(sessions).not.toHaveProperty('parquet');
    // Only real-call sessions have a child table.
    expect(teams).not.toHaveProperty('items');
    expect(await readFile(join(dir, 'teams.csv'), 'utf8')).toBe(
      "id,name\r\nt1,'=SUM(1)\r\nt2,Sales\r\n",
    );
  });

  it('when the items file cannot be made, the sessions file made just before it is removed, and the run fails with the cause', async () => {
    const dir = await tmp();
    const service = fakeService({ 'real-call-sessions': SESSIONS });
    const create = AtomicFile.create.bind(AtomicFile);
    // The second file of the directory cannot be made (a full file table, say).
    const full = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
    let made = 0;
    const spy = vi
      .spyOn(AtomicFile, 'create')
      .mockImplementation(async (target) => (++made === 2 ? Promise.reject(full) : create(target)));
    try {
      const run = exportToDirectory(
        plan({ resources: ['real-call-sessions'], format: 'csv', out: dir }),
        deps(service.client),
      );
      await expect(run).rejects.toMatchObject({ cause: full });
    } finally {
      spy.mockRestore();
    }
    expect(made).toBe(2);
    expect(await readdir(dir)).toEqual([]);
  });

  it('CSV with `bom` and `csvRaw`: both tables start with a BOM and keep cells as the API gave them', async () => {
    const dir = await tmp();
    const service = fakeService({ 'real-call-sessions': SESSIONS.slice(0, 1), teams: TEAMS });
    await exportToDirectory(
      plan({ format: 'csv', out: dir, bom: true, csvRaw: true }),
      deps(service.client),
    );
    expect(await readFile(join(dir, 'real-call-session-items.csv'), 'utf8')).toBe(
      `\uFEFF${ITEMS_HEADER}s1,0,@opening,solved,,,1\r\ns1,1,close,solved,,,0.5\r\n`,
    );
    expect(await readFile(join(dir, 'teams.csv'), 'utf8')).toBe(
      '\uFEFFid,name\r\nt1,=SUM(1)\r\nt2,Sales\r\n',
    );
  });

  it('Parquet: sessions and their items in files cut in row groups as asked, compressed as asked, described in the manifest', async () => {
    const dir = await tmp();
    const sessions = [
      session(1, { score: 1, items: [item('a', 1), item('b', 1)] }),
      session(2, { score: 2, items: [] }),
      session(3, { score: 3, items: [item('c', 1)] }),
      session(4, { score: 4, items: [item('d', 1), item('e', 1), item('f', 1)] }),
      session(5, { score: 5, items: [item('g', 1)] }),
    ];
    const service = fakeService({ 'real-call-sessions': sessions, teams: TEAMS });
    const manifest = await exportToDirectory(
      plan({ format: 'parquet', out: dir, rowGroupRows: 2, compression: 'none' }),
      deps(service.client),
    );
    expect((await readdir(dir)).sort()).toEqual([
      'manifest.json',
      'real-call-session-items.parquet',
      'real-call-sessions.parquet',
      'teams.parquet',
    ]);
    const main = await readParquet(join(dir, 'real-call-sessions.parquet'));
    expect(main.rows.map((r) => r.id)).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(main.groupRows).toEqual([2, 2, 1]);
    const items = await readParquet(join(dir, 'real-call-session-items.parquet'));
    expect(items.rows.map((r) => `${r.sessionId}/${r.itemIndex}/${r.name}`)).toEqual([
      's1/0/a',
      's1/1/b',
      's3/0/c',
      's4/0/d',
      's4/1/e',
      's4/2/f',
      's5/0/g',
    ]);
    expect(items.groupRows).toEqual([2, 2, 2, 1]);
    // Every column chunk is stored as asked (UNCOMPRESSED for `none`).
    for (const file of ['real-call-sessions.parquet', 'real-call-session-items.parquet']) {
      const codecs = (await footerOf(join(dir, file))).row_groups.flatMap((g) =>
        g.columns.map((c) => c.meta_data?.codec),
      );
      expect(new Set(codecs)).toEqual(new Set(['UNCOMPRESSED']));
    }

    const [entry, teams] = manifest.resources;
    expect(entry?.parquet).toMatchObject({
      compression: 'none',
      rowGroups: { count: 3, rows: [2, 2, 1] },
    });
    expect(entry?.parquet?.schema.map((c) => c.name)).toContain('analysis');
    expect(entry?.items).toStrictEqual({
      file: 'real-call-session-items.parquet',
      count: 7,
      ...(await bytesAndHash(join(dir, 'real-call-session-items.parquet'))),
      parquet: {
        compression: 'none',
        rowGroups: { count: 4, rows: [2, 2, 2, 1] },
        schema: expect.arrayContaining([expect.objectContaining({ name: 'sessionId' })]),
      },
    });
    expect(teams?.parquet).toMatchObject({ rowGroups: { count: 1, rows: [2] } });
    expect(teams).not.toHaveProperty('items');
  });
});

/** A writable that collects what it is given. */
function collected() {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return {
    stream,
    text: () => Buffer.concat(chunks).toString('utf8'),
    bytes: () => Buffer.concat(chunks),
  };
}

const teams = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i + 1}`, name: `T${i + 1}` }));

describe('an export streamed to a writable (`out` -)', () => {
  it('CSV: the header once, then the rows of every page', async () => {
    const { stream, text } = collected();
    const service = fakeService({ teams: teams(150) });
    const result = await exportToStream(
      plan({ resources: ['teams'], format: 'csv', out: '-' }),
      deps(service.client),
      stream,
    );
    expect(result.count).toBe(150);
    const lines = text().split('\r\n');
    expect(lines[0]).toBe('id,name');
    expect(lines.filter((l) => l === 'id,name')).toHaveLength(1);
    expect(lines.slice(1, -1)).toEqual(teams(150).map((t) => `${t.id},${t.name}`));
    expect(lines.at(-1)).toBe('');
  });

  it('an empty export still gets its CSV header, once; an empty JSONL export is empty', async () => {
    const csv = collected();
    const service = fakeService({ teams: [] });
    await exportToStream(
      plan({ resources: ['teams'], format: 'csv', out: '-', bom: true }),
      deps(service.client),
      csv.stream,
    );
    expect(csv.text()).toBe('\uFEFFid,name\r\n');
    const jsonl = collected();
    await exportToStream(
      plan({ resources: ['teams'], out: '-' }),
      deps(service.client),
      jsonl.stream,
    );
    expect(jsonl.text()).toBe('');
  });

  it('Parquet: a whole file (footer last), with the row groups asked for', async () => {
    const { stream, bytes } = collected();
    const service = fakeService({ teams: teams(3) });
    await exportToStream(
      plan({ resources: ['teams'], format: 'parquet', out: '-', rowGroupRows: 2 }),
      deps(service.client),
      stream,
    );
    const path = join(await tmp(), 'teams.parquet');
    await writeFile(path, bytes());
    const table = await readParquet(path);
    expect(table.rows.map((r) => r.id)).toEqual(['t1', 't2', 't3']);
    expect(table.groupRows).toEqual([2, 1]);
  });

  /**
   * A writable that takes one byte before it asks the writer to wait (`write` returns false), and
   * holds each chunk until the test lets it through.
   */
  function heldStream() {
    const held: (() => void)[] = [];
    const chunks: string[] = [];
    let arrived: () => void = () => {};
    const stream = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString('utf8'));
        held.push(() => callback());
        arrived();
      },
    });
    /** Resolves when the stream has been given its `n`th chunk. */
    const given = (n: number) =>
      new Promise<void>((resolve) => {
        arrived = () => {
          if (chunks.length >= n) resolve();
        };
        arrived();
      });
    return { stream, held, chunks, given };
  }

  it('waits for the stream to drain before it writes more, and leaves no listener behind', async () => {
    const { stream, held, chunks, given } = heldStream();
    const listeners = () => ['drain', 'close', 'error'].map((e) => stream.listenerCount(e));
    const before = listeners();
    const service = fakeService({ teams: teams(2) });
    const progress: number[] = [];
    const run = exportToStream(
      plan({ resources: ['teams'], format: 'csv', out: '-' }),
      { ...deps(service.client), onProgress: (e) => progress.push(e.count) },
      stream,
    );
    await given(1);
    // The page is answered, and some turns go by: nothing more is written while the header waits.
    expect(service.requests).toHaveLength(1);
    for (let i = 0; i < 20; i++) await aTurn();
    expect(chunks).toEqual(['id,name\r\n']);
    expect(stream.writableLength).toBe('id,name\r\n'.length);
    expect(progress).toEqual([]);
    held.shift()?.();
    await given(2);
    held.shift()?.();
    const result = await run;
    expect(result.count).toBe(2);
    expect(chunks).toEqual(['id,name\r\n', 't1,T1\r\nt2,T2\r\n']);
    expect(listeners()).toEqual(before);
  });

  it('a stream closed before the end fails the export, naming it, with what was sent kept sent and no listener left', async () => {
    const { stream, chunks, given } = heldStream();
    const listeners = () => ['drain', 'close', 'error'].map((e) => stream.listenerCount(e));
    const before = listeners();
    const service = fakeService({ teams: teams(2) });
    const run = exportToStream(
      plan({ resources: ['teams'], format: 'csv', out: '-' }),
      deps(service.client),
      stream,
    );
    await given(1);
    stream.destroy();
    await expect(run).rejects.toThrow(ExportError);
    await expect(run).rejects.toThrow(/^standard output was closed before the export ended$/);
    await expect(run).rejects.toMatchObject({ resource: 'teams' });
    expect(chunks).toEqual(['id,name\r\n']);
    expect(listeners()).toEqual(before);
  });
});
