import { EXPORT_TABLE } from '@rcs/client';
import { generateDemoDataset, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiValidator } from './helpers/openapi-validator.js';

/** The demo dataset: deterministic from the seed, sized by records, lazy up to 1,000,000. */

const spec = openApiValidator();

async function pageOf(url: string, key: string, operationId: string, path: string, query = '') {
  const r = await fetch(`${url}${path}?${query}`, { headers: { 'x-api-key': key } });
  return spec.expectResponse(operationId, r) as Promise<{
    data: { id: string }[];
    meta: { total: number };
  }>;
}

describe('a million records', () => {
  let server: Awaited<ReturnType<typeof startMockServer>>;
  beforeAll(async () => {
    server = await startMockServer({ port: 0, records: 1_000_000, processingMs: 0 });
  });
  afterAll(() => server.close());

  it('totals the requested size over all organizations and every page is in D9 order', async () => {
    let total = 0;
    for (const org of server.info.organizations) {
      for (const row of EXPORT_TABLE) {
        const p = await pageOf(
          server.url,
          org.apiKeys[0] as string,
          row.operationId,
          row.path,
          'limit=1',
        );
        total += p.meta.total;
      }
    }
    expect(total).toBe(1_000_000);
    const key = server.info.apiKey as string;
    const last = await pageOf(
      server.url,
      key,
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
      'limit=100&page=4000',
    );
    expect(last.data).toHaveLength(100);
    const times = last.data.map((s) =>
      Date.parse((s as unknown as { createdAt: string }).createdAt),
    );
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('resolves generated ids and emails: the printed rep emails upload, generated sessions read back', async () => {
    const key = server.info.apiKey as string;
    const email = server.info.repEmails[0] as string;
    const transcript = `1\n00:00:01,000 --> 00:00:04,000\n${email}: What budget do you have?\n`;
    const r = await fetch(`${server.url}/api/v1/real-call-sessions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ transcript, meetingName: 'demo', email }),
    });
    const created = (await spec.expectResponse('createRealCallSession', r)) as { userId: string };
    expect(r.status).toBe(201);
    const users = await pageOf(
      server.url,
      key,
      'exportUsers',
      '/api/v1/data-exports/users',
      'limit=1',
    );
    expect(created.userId).toBe(users.data[0]?.id);

    const sessions = await pageOf(
      server.url,
      key,
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
      'limit=1&page=123456',
    );
    const id = sessions.data[0]?.id as string;
    const g = await fetch(`${server.url}/api/v1/real-call-sessions/${id}`, {
      headers: { 'x-api-key': key },
    });
    expect(((await spec.expectResponse('getRealCallSession', g)) as { state: string }).state).toBe(
      'DONE',
    );
  });
});

describe('generateDemoDataset', () => {
  const firstPage = (seed: number) => {
    const { dataset } = generateDemoDataset({ seed, records: 500 });
    const org = dataset.organizations[0];
    if (!org) throw new Error('no organization');
    return [org.users.at(0), org.realCallSessions.at(3), org.trackAssignments.at(2), org.apiKeys];
  };

  it('is deterministic from the seed', () => {
    expect(firstPage(7)).toEqual(firstPage(7));
    expect(firstPage(7)).not.toEqual(firstPage(8));
  });

  it('has what a newcomer needs: an auto-creating organization with domains, seats, archived tracks, DONE sessions with participants', () => {
    const { dataset, info } = generateDemoDataset({ records: 500 });
    const org = dataset.organizations[0];
    if (!org) throw new Error('no organization');
    expect(org.settings).toMatchObject({
      autoCreateUsers: true,
      emailDomains: ['demo-sales.example'],
    });
    expect(org.settings.seatLimit).toBeGreaterThan(org.users.length);
    const tracks = Array.from({ length: org.tracks.length }, (_, i) => org.tracks.at(i));
    expect(tracks.some((t) => t.archived)).toBe(true);
    expect(tracks.some((t) => !t.archived)).toBe(true);
    const s = org.realCallSessions.at(0);
    expect(s.state).toBe('DONE');
    const withParticipants = Array.from({ length: 20 }, (_, i) =>
      org.realCallSessions.at(i),
    ).filter((x) => (x.participantUserIds ?? []).length > 1);
    expect(withParticipants.length).toBeGreaterThan(0);
    expect(org.scorecards.at(0).items[0]?.keywords.length).toBeGreaterThan(0);
    expect(info.apiKeys).toEqual(dataset.organizations.flatMap((o) => o.apiKeys));
    expect(info.repEmails.every((e) => e.endsWith('@demo-sales.example'))).toBe(true);
  });

  it('refuses a size too small to hold its lists', () => {
    expect(() => generateDemoDataset({ records: 10 })).toThrow(/records must be an integer >= 60/);
  });
});
