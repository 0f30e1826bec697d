import { generateDemoDataset, generateDemoFixture, loadFixture } from '@rcs/mock';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * The demo data as a nightly job sees it: a larger demo is a smaller one plus records, and
 * "night N" (`day`) is the night before with a few percent inserted, updated and deleted.
 */

type Rec = { id: string } & Record<string, unknown>;
const LISTS = [
  'users',
  'teams',
  'scorecards',
  'missions',
  'tracks',
  'sprints',
  'trackAssignments',
  'missionAssignments',
  'realCallSessions',
] as const;

const lists = (records: number, day?: number, seed = 42) =>
  generateDemoFixture({ records, seed, ...(day === undefined ? {} : { day }) }).organizations.map(
    (o) => Object.fromEntries(LISTS.map((l) => [l, (o[l] ?? []) as Rec[]])),
  );

/** What changed from `a` to `b` by id, as a `--changes` export reports it. */
function diff(a: Rec[], b: Rec[]) {
  const before = new Map(a.map((r) => [r.id, r]));
  const after = new Map(b.map((r) => [r.id, r]));
  const inserts = b.filter((r) => !before.has(r.id));
  const deletes = a.filter((r) => !after.has(r.id));
  const updates = b.filter((r) => before.has(r.id) && !isDeepEqual(before.get(r.id), r));
  return { inserts, updates, deletes, before };
}
const isDeepEqual = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

describe('--records: record i is the same whatever the size', () => {
  it('the first records of every list of N records are those of M > N records', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 60, max: 2500 }),
        fc.integer({ min: 1, max: 800 }),
        (n, more) => {
          const small = lists(n);
          const large = lists(n + more);
          small.forEach((org, o) => {
            for (const l of LISTS) {
              const a = org[l] as Rec[];
              const b = large[o]?.[l] as Rec[];
              expect(a.length).toBeLessThanOrEqual(b.length);
              expect(b.slice(0, a.length)).toEqual(a);
            }
          });
        },
      ),
      { numRuns: 12 },
    );
  });

  it('2,000 then 2,100 records: only inserts, nothing updated', () => {
    const a = lists(2000)[0] as Record<string, Rec[]>;
    const b = lists(2100)[0] as Record<string, Rec[]>;
    let inserts = 0;
    for (const l of LISTS) {
      const d = diff(a[l] ?? [], b[l] ?? []);
      expect([d.updates.length, d.deletes.length], l).toEqual([0, 0]);
      inserts += d.inserts.length;
    }
    expect(inserts).toBe(100);
  });
});

describe('--day: night N', () => {
  it('day 0 is the data without a day; the same seed and day give the same data', () => {
    expect(generateDemoFixture({ records: 800, day: 0 })).toEqual(
      generateDemoFixture({ records: 800 }),
    );
    expect(lists(800, 2)).toEqual(lists(800, 2));
    expect(lists(800, 2, 7)).not.toEqual(lists(800, 2));
  });

  it('every night keeps every reference valid and the lists in D9 order', () => {
    for (const day of [0, 1, 2, 3]) {
      // loadFixture checks that every referenced id exists in its organization.
      const f = loadFixture(generateDemoFixture({ records: 1200, day }));
      const { dataset } = generateDemoDataset({ records: 1200, day });
      for (const [o, org] of f.organizations.entries()) {
        const data = dataset.organizations[o];
        for (const l of ['users', 'sprints', 'trackAssignments', 'realCallSessions'] as const) {
          const times = (org[l] ?? []).map((r) => Date.parse(r.createdAt));
          expect(times, l).toEqual([...times].sort((x, y) => x - y));
        }
        for (const u of org.users) expect(data?.findUserById(u.id)).toEqual(u);
        for (const s of org.realCallSessions ?? []) expect(data?.findSession(s.id)).toEqual(s);
        for (const m of org.missions) expect(data?.findMission(m.id)).toEqual(m);
        for (const u of org.users) expect(data?.findUserByEmail(u.email as string)).toEqual(u);
      }
    }
  });

  it('night 1 inserts, updates and deletes a few percent of every list, with later times', () => {
    const day0 = lists(2000, 0)[0] as Record<string, Rec[]>;
    const day1 = lists(2000, 1)[0] as Record<string, Rec[]>;
    const latest = Math.max(
      ...Object.values(day0).flatMap((rs) =>
        rs.flatMap((r) =>
          [r.createdAt, r.lastUpdatedAt]
            .filter((t) => typeof t === 'string')
            .map((t) => Date.parse(t as string)),
        ),
      ),
    );
    for (const l of LISTS) {
      const n = (day0[l] ?? []).length;
      const d = diff(day0[l] ?? [], day1[l] ?? []);
      const few = Math.max(1, Math.ceil(n * 0.05));
      for (const count of [d.inserts.length, d.updates.length, d.deletes.length]) {
        expect(count, l).toBeGreaterThan(0);
        expect(count, l).toBeLessThanOrEqual(few);
      }
      for (const r of d.inserts) {
        if (r.createdAt !== undefined)
          expect(Date.parse(r.createdAt as string)).toBeGreaterThan(latest);
      }
      for (const r of d.updates) {
        const old = d.before.get(r.id) as Rec;
        if (r.lastUpdatedAt !== undefined) {
          expect(Date.parse(r.lastUpdatedAt as string)).toBeGreaterThan(
            Date.parse(old.lastUpdatedAt as string),
          );
        }
        const { lastUpdatedAt: _a, ...rest } = r;
        const { lastUpdatedAt: _b, ...was } = old;
        expect(rest, `${l} ${r.id}`).not.toEqual(was);
      }
    }
  });
});
