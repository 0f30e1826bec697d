import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arrayCollection,
  compareD9,
  filtered,
  MergedCollection,
  slice,
} from '../../src/collection.js';

const rec = (t: number, id: string) => ({
  id,
  createdAt: new Date(Date.UTC(2026, 0, 1) + t * 1000).toISOString(),
});

describe('MergedCollection', () => {
  it('every slice equals the D9-sorted union of base and added records (property)', () => {
    const item = fc.record({ t: fc.integer({ min: 0, max: 20 }), id: fc.uuid() });
    fc.assert(
      fc.property(
        fc.uniqueArray(item, { selector: (r) => r.id }),
        fc.uniqueArray(item, { selector: (r) => r.id }),
        fc.nat(40),
        fc.nat(40),
        (b, a, start, len) => {
          const baseIds = new Set(b.map((r) => r.id));
          const added = a.filter((r) => !baseIds.has(r.id)).map((r) => rec(r.t, r.id));
          const base = b.map((r) => rec(r.t, r.id)).sort(compareD9);
          const merged = new MergedCollection(arrayCollection(base), compareD9);
          for (const r of added) merged.add(r);
          const all = [...base, ...added].sort(compareD9);
          expect(merged.length).toBe(all.length);
          expect(merged.slice(start, start + len)).toEqual(all.slice(start, start + len));
        },
      ),
    );
  });

  it('D9: records without createdAt are ordered by id', () => {
    const c = arrayCollection([{ id: 'b' }, { id: 'a' }].sort(compareD9));
    expect(slice(c, 0, 2).map((r) => r.id)).toEqual(['a', 'b']);
  });
});

describe('filtered', () => {
  it('keeps order and counts only matching records', () => {
    const c = filtered(arrayCollection([1, 2, 3, 4, 5, 6]), (n) => n % 2 === 0);
    expect(c.length).toBe(3);
    expect(slice(c, 1, 10)).toEqual([4, 6]);
  });
});
