import { EXPORT_TABLE } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { ExportUsageError } from '../src/errors.js';
import { type ExportOptions, planExport } from '../src/options.js';

const base: ExportOptions = {
  resources: ['all'],
  format: 'jsonl',
  out: '',
  concurrency: 8,
  csvRaw: false,
  bom: false,
  allowDrift: false,
};

describe('planExport', () => {
  it('all means the nine of EXPORT_TABLE, in table order', () => {
    const plan = planExport(base);
    expect(plan.entries.map((e) => e.resource)).toEqual(EXPORT_TABLE.map((e) => e.resource));
    expect(plan.dir).toBe('rcs-export');
  });

  it('an empty or absent `out` is the default directory, rcs-export', () => {
    expect(planExport({ ...base, out: undefined }).dir).toBe('rcs-export');
    expect(planExport({ ...base, out: '' }).dir).toBe('rcs-export');
    expect(planExport({ ...base, out: 'nightly' }).dir).toBe('nightly');
  });

  it('blank names are skipped; names that are all blank name nothing to export', () => {
    const plan = planExport({ ...base, resources: ['', ' users', '  ', 'teams\t'] });
    expect(plan.entries.map((e) => e.resource)).toEqual(['users', 'teams']);
    expect(() => planExport({ ...base, resources: ['', ' '] })).toThrow(
      /^name what to export: one or more of .*\busers\b.*, or all$/,
    );
  });

  it('`allowDrift` is off unless asked for', () => {
    expect(planExport({ ...base, allowDrift: undefined }).allowDrift).toBe(false);
    expect(planExport({ ...base, allowDrift: true }).allowDrift).toBe(true);
  });

  it('takes names in any order and repeated, giving each once in table order', () => {
    const plan = planExport({ ...base, resources: ['teams', 'users', 'teams', ' users '] });
    expect(plan.entries.map((e) => e.resource)).toEqual(['users', 'teams']);
  });

  it('--ack takes a run id and --full starts over, both with --changes only and never together', () => {
    const ack = '20261125T020000Z-3fa9c1';
    expect(planExport({ ...base, changes: true, ack })).toMatchObject({ ack, full: false });
    expect(planExport({ ...base, changes: true, full: true })).toMatchObject({ full: true });
    const refused: [Partial<ExportOptions>, RegExp][] = [
      [{ ack }, /`ack` applies to `changes` only/],
      [{ full: true }, /`full` applies to `changes` only/],
      [{ changes: true, ack, full: true }, /`ack` and `full` contradict/],
      [{ changes: true, ack: 'last-night' }, /`ack` takes a run id .*got "last-night"/],
    ];
    for (const [options, message] of refused) {
      expect(() => planExport({ ...base, ...options })).toThrow(message);
    }
  });

  it('--out - is stdout (no directory) for one export', () => {
    expect(planExport({ ...base, resources: ['users'], out: '-' }).dir).toBeUndefined();
  });

  it('accepts --archived with tracks among the exports, and csv options with csv', () => {
    expect(planExport({ ...base, archived: 'only' }).archived).toBe('only');
    expect(planExport({ ...base, format: 'csv', csvRaw: true, bom: true })).toMatchObject({
      csvRaw: true,
      bom: true,
    });
  });

  it.each([
    [{ resources: [] }, /name what to export/],
    [{ resources: ['users', 'sesions'] }, /unknown export "sesions"/],
    [{ csvRaw: true }, /`csvRaw` applies to `format` csv only/],
    [{ concurrency: 65 }, /from 1 to 64, got 65/],
    [{ concurrency: 2.5 }, /got 2\.5/],
    [{ archived: 'all' as 'only' }, /`archived` must be include or only/],
  ])('rejects %o', (over, message) => {
    expect(() => planExport({ ...base, ...over })).toThrow(ExportUsageError);
    expect(() => planExport({ ...base, ...over })).toThrow(message);
  });
});

describe('planExport --concurrency', () => {
  it('takes a number, and defaults to 8', () => {
    expect(planExport({ ...base, concurrency: 12 }).concurrency).toBe(12);
    expect(planExport({ ...base, concurrency: undefined }).concurrency).toBe(8);
  });
});

describe('planExport: each bad input, in words', () => {
  const NINE = EXPORT_TABLE.map((e) => e.resource).join(', ');
  it.each([
    [{ resources: ['a', 'b'] }, `unknown export "a", "b"; the exports are: ${NINE} (or all)`],
    [{ bom: true }, '`bom` applies to `format` csv only (JSONL is UTF-8 without a BOM)'],
    [
      { format: 'parquet' as const, csvRaw: true },
      '`csvRaw` applies to `format` csv only (Parquet is typed and binary)',
    ],
    [{ concurrency: 0 }, '`concurrency` must be a whole number from 1 to 64, got 0'],
    [{ concurrency: 65 }, '`concurrency` must be a whole number from 1 to 64, got 65'],
    [
      { format: 'parquet' as const, rowGroupRows: 100_000_001 },
      '`rowGroupRows` must be a whole number from 1 to 100000000, got 100000001',
    ],
    [
      { format: 'parquet' as const, rowGroupBytes: 1.5 },
      '`rowGroupBytes` must be a whole number from 1 to 1073741824, got 1.5',
    ],
    [
      { format: 'csv' as const, rowGroupBytes: 10 },
      "`rowGroupBytes` applies to `format` parquet only (row groups are Parquet's)",
    ],
    [
      { format: 'jsonl' as const, compression: 'zstd' as const },
      '`compression` applies to `format` parquet only (the pages of a Parquet file)',
    ],
    [
      { format: 'parquet' as const, compression: 'gzip' as 'zstd' },
      '`compression` must be snappy, zstd or none, got "gzip"',
    ],
    [{ archived: 'some' as 'only' }, '`archived` must be include or only, got "some"'],
    [
      { resources: ['users'], archived: 'include' as const },
      '`archived` applies to the tracks export only; add tracks or all',
    ],
    [
      { resources: ['users', 'teams'], out: '-' },
      '`out` - streams exactly one export to stdout, but 2 were named; pick one, or write to a directory',
    ],
    [
      { resources: ['users'], out: '-', changes: true },
      '`changes` compares with the previous run kept in the output directory; it needs `out` DIR, not -',
    ],
  ])('%o', (over, message) => {
    expect(() => planExport({ ...base, ...over })).toThrow(
      new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
  });

  it('accepts the bounds themselves, and both archive modes with tracks', () => {
    expect(planExport({ ...base, concurrency: 64 }).concurrency).toBe(64);
    expect(planExport({ ...base, concurrency: 1 }).concurrency).toBe(1);
    const parquet = { ...base, format: 'parquet' as const };
    expect(planExport({ ...parquet, rowGroupRows: 100_000_000 }).rowGroupRows).toBe(100_000_000);
    expect(planExport({ ...parquet, rowGroupBytes: 1 }).rowGroupBytes).toBe(1);
    expect(planExport(parquet)).toMatchObject({ rowGroupRows: 100_000, rowGroupBytes: 64 << 20 });
    expect(planExport(parquet).compression).toBe('snappy');
    for (const compression of ['snappy', 'zstd', 'none'] as const) {
      expect(planExport({ ...parquet, compression }).compression).toBe(compression);
    }
    for (const archived of ['include', 'only'] as const) {
      expect(planExport({ ...base, resources: ['tracks'], archived }).archived).toBe(archived);
    }
  });
});
