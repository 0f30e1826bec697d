import { EXPORT_TABLE } from '@rcs/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Acme, GLOBEX, startAcme } from './helpers/mock-server.js';

/** The nine exports (D7–D10), derived from EXPORT_TABLE, answers checked against openapi.yaml. */

let m: Acme;
beforeAll(async () => {
  m = await startAcme();
});
afterAll(() => m.close());

/** Acme's fixture counts per export. */
const ACME_TOTALS: Record<string, number> = {
  'real-call-sessions': 1,
  'track-assignments': 1,
  'mission-assignments': 1,
  sprints: 1,
  users: 3,
  tracks: 2,
  scorecards: 2,
  missions: 2,
  teams: 1,
};

describe.each(EXPORT_TABLE.map((row) => [row.resource, row] as const))('%s', (_resource, row) => {
  const page = (query = '', key: string = ACME.key) =>
    m.exportPage(row.operationId, row.path, query, { key });

  it('D7: defaults page 1, limit 20, exact meta', async () => {
    const r = await page();
    expect(r.status).toBe(200);
    const total = ACME_TOTALS[row.resource];
    expect(r.body.meta).toEqual({ total, page: 1, limit: 20, hasNext: false });
    expect(r.body.data).toHaveLength(total as number);
  });

  it('pages with limit 1 walk every record once, hasNext false on the last', async () => {
    const total = ACME_TOTALS[row.resource] as number;
    const ids: string[] = [];
    for (let p = 1; p <= total; p++) {
      const r = await page(`page=${p}&limit=1`);
      expect(r.body.meta).toEqual({ total, page: p, limit: 1, hasNext: p < total });
      ids.push(r.body.data[0].id);
    }
    expect(new Set(ids).size).toBe(total);
  });

  it('D7: a page past the end is 200 with data [] and the true total', async () => {
    const r = await page('page=999&limit=100');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [],
      meta: { total: ACME_TOTALS[row.resource], page: 999, limit: 100, hasNext: false },
    });
  });

  it.each([
    'page=0',
    'page=-1',
    'page=abc',
    'page=1.5',
    'limit=0',
    'limit=101',
    'limit=',
    'limit=1e2',
    'page=1&page=2',
  ])('D7: 400 for %s', async (query) => {
    const r = await page(query);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors[0].path).toMatch(/^\/query\/(page|limit)$/);
  });

  it('D23: another organization sees only its own records', async () => {
    const r = await page('limit=100', GLOBEX.key);
    const acmeIds = new Set((await page('limit=100')).body.data.map((d: { id: string }) => d.id));
    for (const d of r.body.data) expect(acmeIds.has(d.id)).toBe(false);
  });
});

describe('D8 tracks archive filter', () => {
  const tracks = (q: string) => m.exportPage('exportTracks', '/api/v1/data-exports/tracks', q);
  it('include (default) returns all, only returns the archived ones; archived is always present', async () => {
    const all = await tracks('archived=include');
    expect(all.body.data.map((t: { archived: boolean }) => t.archived)).toEqual([false, true]);
    const only = await tracks('archived=only');
    expect(only.body.meta.total).toBe(1);
    expect(only.body.data[0]).toMatchObject({ id: '64b7f0c2a1b2c3d4e5f6072a', archived: true });
  });
  it.each(['archived=exclude', 'archived=ONLY', 'archived=', 'archived=only&archived=include'])(
    '400 for %s',
    async (q) => {
      const r = await tracks(q);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].path).toBe('/query/archived');
    },
  );
});

describe('D9 order and record shapes', () => {
  it('users by createdAt then id (the manager was created first)', async () => {
    const r = await m.exportPage('exportUsers', '/api/v1/data-exports/users');
    expect(r.body.data.map((u: { id: string }) => u.id)).toEqual([
      ACME.manager.id,
      ACME.rep.id,
      ACME.noEmailUserId,
    ]);
    // D6: fixture emails are stored lowercase.
    expect(r.body.data[0].email).toBe('manager@acme.com');
  });
  it('scorecards and missions by id, with only id, title, language', async () => {
    const s = await m.exportPage('exportScorecards', '/api/v1/data-exports/scorecards');
    expect(s.body.data).toEqual([
      { id: ACME.scorecard, title: 'Discovery call', language: 'en' },
      { id: ACME.germanScorecard, title: 'Produktdemo', language: 'de' },
    ]);
    const mi = await m.exportPage('exportMissions', '/api/v1/data-exports/missions');
    expect(Object.keys(mi.body.data[0]).sort()).toEqual(['id', 'language', 'title']);
  });
  it('D10: created sessions are exported in every state, after the older ones', async () => {
    const c = await m.create({
      transcript: 'We discussed the budget today.',
      meetingName: 'x',
      email: ACME.rep.email,
    });
    const r = await m.exportPage(
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
    );
    expect(r.body.meta.total).toBe(2);
    expect(r.body.data.map((s: { id: string }) => s.id)).toEqual([ACME.session, c.body.id]);
    expect(r.body.data[1]).toMatchObject({
      learnerUserId: ACME.rep.id,
      completed: false,
      analysis: { score: 0, items: [] },
      missionId: null,
      participantUserIds: [],
    });
  });
});
