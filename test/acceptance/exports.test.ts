/**
 * The nine data exports: shape against openapi.yaml, defaults and bounds (D7), the tracks
 * archive filter (D8), order (D9), paging past the end, and tenancy (D23).
 */
import { EXPORT_TABLE } from '@rcs/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Booted, boot, EXPORTS, GLOBEX, OPEN } from './helpers.js';

let m: Booted;
beforeAll(async () => {
  m = await boot();
});
afterAll(() => m.close());

const path = (resource: string) => `/api/v1/data-exports/${resource}`;

describe('the nine exports (description: Data exports)', () => {
  it('the client export table names exactly the nine paths and operations of the description', () => {
    const rows = EXPORT_TABLE.map((r) => [r.operationId, r.path]).sort();
    const expected = EXPORTS.map(([op, res]) => [op, `/api/v1/data-exports/${res}`]).sort();
    expect(rows).toEqual(expected);
  });

  it.each(EXPORTS)('%s: defaults page 1, limit 20, conforming page (D7)', async (op, res) => {
    const a = await m.exp(op, path(res));
    expect(a.status).toBe(200);
    expect(a.contract).toEqual([]);
    expect(a.body.meta.page).toBe(1);
    expect(a.body.meta.limit).toBe(20);
    expect(a.body.meta.total).toBe(a.body.data.length);
    expect(a.body.meta.hasNext).toBe(false);
  });

  const bad = [
    'page=0',
    'page=-1',
    'page=1.5',
    'page=abc',
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=2.5',
  ];
  it.each(EXPORTS)('%s: out-of-range or non-integer page/limit are 400 (D7)', async (op, res) => {
    for (const q of bad) {
      const a = await m.exp(op, path(res), q);
      expect({ q, status: a.status, code: a.body?.code }).toEqual({
        q,
        status: 400,
        code: 'validation_failed',
      });
      expect(a.contract, q).toEqual([]);
    }
  });

  it.each(EXPORTS)('%s: limit 1 and limit 100 are accepted', async (op, res) => {
    for (const limit of [1, 100]) {
      const a = await m.exp(op, path(res), `limit=${limit}`);
      expect(a.status).toBe(200);
      expect(a.body.meta.limit).toBe(limit);
      expect(a.body.data.length).toBeLessThanOrEqual(limit);
    }
  });

  it('exports of an organization with nothing are empty pages, not errors', async () => {
    const a = await m.exp('exportTracks', path('tracks'), '', { key: OPEN.key });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, hasNext: false } });
  });
});

describe('paging and order (D7, D9)', () => {
  it('users by createdAt ascending, then id; pages of 2; past the end is empty with the true total', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const a = await m.exp('exportUsers', path('users'), `page=${page}&limit=2`);
      expect(a.contract).toEqual([]);
      pages.push(a.body);
    }
    expect(pages.map((p) => p.meta.hasNext)).toEqual([true, true, false]);
    expect(pages.every((p) => p.meta.total === 5)).toBe(true);
    const ids = pages.flatMap((p) => p.data.map((u: { id: string }) => u.id));
    expect(ids).toEqual([ACME.rep.id, ACME.coach.id, ACME.twinA, ACME.twinB, ACME.noEmail]);
    const far = await m.exp('exportUsers', path('users'), 'page=1000000');
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    const past = await m.exp('exportUsers', path('users'), 'page=9&limit=2');
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], meta: { total: 5, page: 9, limit: 2, hasNext: false } });
  });

  it('hasNext at the exact boundary', async () => {
    const q = async (query: string) => (await m.exp('exportUsers', path('users'), query)).body;
    expect((await q('limit=5')).meta).toEqual({ total: 5, page: 1, limit: 5, hasNext: false });
    expect((await q('limit=4')).meta.hasNext).toBe(true);
    const p2 = await q('page=2&limit=4');
    expect(p2.data).toHaveLength(1);
    expect(p2.meta.hasNext).toBe(false);
    const p3 = await q('page=2&limit=5');
    expect(p3).toEqual({ data: [], meta: { total: 5, page: 2, limit: 5, hasNext: false } });
  });

  it('records without createdAt (tracks) come by id', async () => {
    const a = await m.exp('exportTracks', path('tracks'));
    const ids = a.body.data.map((t: { id: string }) => t.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('users carry nullable email/names and lowercase stored emails (D6)', async () => {
    const a = await m.exp('exportUsers', path('users'));
    const noEmail = a.body.data.find((u: { id: string }) => u.id === ACME.noEmail);
    expect(noEmail.email).toBeNull();
    const twinB = a.body.data.find((u: { id: string }) => u.id === ACME.twinB);
    expect(twinB.firstName).toBeNull();
  });

  it('scorecards and missions export only id, title, language', async () => {
    const s = await m.exp('exportScorecards', path('scorecards'));
    for (const r of s.body.data) expect(Object.keys(r).sort()).toEqual(['id', 'language', 'title']);
    const mi = await m.exp('exportMissions', path('missions'));
    for (const r of mi.body.data)
      expect(Object.keys(r).sort()).toEqual(['id', 'language', 'title']);
  });
});

describe('tracks archive filter (D8)', () => {
  it('include by default and with archived=include; archived always present', async () => {
    for (const q of ['', 'archived=include']) {
      const a = await m.exp('exportTracks', path('tracks'), q);
      expect(a.status).toBe(200);
      expect(a.body.meta.total).toBe(3);
      for (const t of a.body.data) expect(typeof t.archived).toBe('boolean');
      expect(a.body.data.filter((t: { archived: boolean }) => t.archived)).toHaveLength(1);
    }
  });
  it('archived=only returns just the archived tracks', async () => {
    const a = await m.exp('exportTracks', path('tracks'), 'archived=only');
    expect(a.status).toBe(200);
    expect(a.contract).toEqual([]);
    expect(a.body.data.map((t: { id: string }) => t.id)).toEqual([ACME.archivedTrack]);
    expect(a.body.meta.total).toBe(1);
  });
  it.each(['exclude', 'ONLY', 'true', ''])('archived=%s is 400', async (v) => {
    const a = await m.exp('exportTracks', path('tracks'), `archived=${v}`);
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('validation_failed');
    expect(a.contract).toEqual([]);
  });
});

describe('tenancy of exports (D23)', () => {
  it("another organization's export holds none of Acme's records", async () => {
    const c = await m.create({
      transcript: 'a plain transcript about budget',
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(c.status).toBe(201);
    const acme = await m.exp('exportRealCallSessions', path('real-call-sessions'));
    expect(acme.body.data.map((s: { id: string }) => s.id)).toContain(c.body.id);
    for (const [op, res] of EXPORTS) {
      const g = await m.exp(op, path(res), 'limit=100', { key: GLOBEX.key });
      expect(g.status).toBe(200);
      expect(g.contract).toEqual([]);
      const text = JSON.stringify(g.body.data);
      expect(text).not.toContain(c.body.id);
      expect(text).not.toContain(ACME.rep.id);
      expect(text).not.toContain('aaaaaaaaaaaaaaaaaaaa');
    }
    const users = await m.exp('exportUsers', path('users'), '', { key: GLOBEX.key });
    expect(users.body.data.map((u: { id: string }) => u.id).sort()).toEqual(
      [GLOBEX.boss.id, GLOBEX.moved.id].sort(),
    );
  });
});

describe('order of every export (D9) with the fixture arrays reversed', () => {
  it('by createdAt then id; records without createdAt by id', async () => {
    const r = await boot({
      edit: (f) => {
        for (const org of f.organizations) {
          for (const k of ['users', 'teams', 'scorecards', 'missions', 'tracks', 'sprints']) {
            org[k].reverse();
          }
        }
        const acme = f.organizations[0];
        // Two more sprints: an older one, and one at the same instant with a smaller id.
        const base = acme.sprints[0];
        acme.sprints.push(
          {
            ...base,
            id: 'a0000000-0000-4000-8000-000000000032',
            createdAt: '2026-01-10T09:00:00Z',
          },
          {
            ...base,
            id: 'a0000000-0000-4000-8000-000000000031',
            createdAt: '2026-01-09T09:00:00Z',
          },
          {
            ...base,
            id: 'a0000000-0000-4000-8000-000000000029',
            createdAt: '2026-01-10T09:00:00Z',
          },
        );
      },
    });
    try {
      const byCreatedThenId = (a: { createdAt: string; id: string }, b: typeof a) =>
        Date.parse(a.createdAt) - Date.parse(b.createdAt) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      for (const [op, res] of EXPORTS) {
        const a = await r.exp(op, path(res), 'limit=100');
        expect(a.status).toBe(200);
        const data = a.body.data as { id: string; createdAt?: string }[];
        const expected =
          data[0]?.createdAt === undefined
            ? [...data].sort((x, y) => (x.id < y.id ? -1 : 1))
            : [...data].sort((x, y) => byCreatedThenId(x as never, y as never));
        expect(
          data.map((d) => d.id),
          res,
        ).toEqual(expected.map((d) => d.id));
      }
      const sprints = await r.exp('exportSprints', path('sprints'));
      expect(sprints.body.data.map((s: { id: string }) => s.id)).toEqual([
        'a0000000-0000-4000-8000-000000000031',
        'a0000000-0000-4000-8000-000000000029',
        'a0000000-0000-4000-8000-000000000030',
        'a0000000-0000-4000-8000-000000000032',
      ]);
    } finally {
      await r.close();
    }
  });

  it('sessions created at the same instant come by id', async () => {
    const r = await boot();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const c = await r.create({
          transcript: 'plain text about budget',
          meetingName: 'x',
          userId: ACME.rep.id,
        });
        ids.push(c.body.id);
      }
      const a = await r.exp('exportRealCallSessions', path('real-call-sessions'));
      expect(a.body.data.map((s: { id: string }) => s.id)).toEqual([...ids].sort());
    } finally {
      await r.close();
    }
  });
});

describe('rate limit (D2 429)', () => {
  it('429 rate_limited with Retry-After in seconds, as a problem', async () => {
    const r = await boot({ faults: { rateLimit: 2 } });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await r.exp('exportTeams', path('teams')));
      const limited = answers.find((a) => a.status === 429);
      expect(limited).toBeDefined();
      expect(limited?.body.code).toBe('rate_limited');
      expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limited?.contract).toEqual([]);
    } finally {
      await r.close();
    }
  });
});
