import { EXPORT_TABLE } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { ExportUsageError } from '../src/errors.js';
import { DEFAULT_OUT_DIR, type ExportOptions, planExport } from '../src/options.js';

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
    expect(plan.dir).toBe(DEFAULT_OUT_DIR);
  });

  it('takes names in any order and repeated, giving each once in table order', () => {
    const plan = planExport({ ...base, resources: ['teams', 'users', 'teams', ' users '] });
    expect(plan.entries.map((e) => e.resource)).toEqual(['users', 'teams']);
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
    [{ csvRaw: true }, /--csv-raw applies to --format csv only/],
    [{ concurrency: 65 }, /from 1 to 64, got 65/],
    [{ concurrency: 2.5 }, /got 2\.5/],
    [{ archived: 'all' as 'only' }, /--archived must be include or only/],
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
