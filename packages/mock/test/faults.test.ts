import { afterEach, describe, expect, it } from 'vitest';
import { ACME, type Acme, startAcme } from './helpers/mock-server.js';

/** Fault injection for clients' resilience tests: always before any state change, except dropAfterCreate. */

let m: Acme | undefined;
afterEach(async () => {
  await m?.close();
  m = undefined;
});

const upload = {
  transcript: 'We discussed the budget today.',
  meetingName: 'x',
  email: 'new.rep@acme.com',
};

describe('faultRate', () => {
  it('fails every request at rate 1 with 503 (Retry-After), 502 on reads, or a dropped connection, and never changes state', async () => {
    m = await startAcme({ faults: { faultRate: 1 } });
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      try {
        const r = await m.create(upload);
        expect([503]).toContain(r.status);
        expect(r.headers.get('retry-after')).toBe('1');
        seen.add(`create ${r.status}`);
      } catch {
        seen.add('create drop');
      }
      try {
        const r = await m.get(ACME.session);
        expect([502, 503]).toContain(r.status);
        seen.add(`read ${r.status}`);
      } catch {
        seen.add('read drop');
      }
    }
    // A 502 on creation would claim an identity provider refusal: only reads get it.
    expect(seen).toEqual(
      new Set(['create 503', 'create drop', 'read 502', 'read 503', 'read drop']),
    );
    expect(m.state.counts()).toEqual({ createdUsers: 0, createdSessions: 0 });
  });

  it('at rate 0 nothing fails', async () => {
    m = await startAcme({ faults: { faultRate: 0 } });
    for (let i = 0; i < 10; i++) expect((await m.get(ACME.session)).status).toBe(201);
  });

  it('refuses impossible options with a clear message', async () => {
    await expect(startAcme({ faults: { faultRate: 2 } })).rejects.toThrow(/faultRate/);
    await expect(startAcme({ faults: { latencyMs: -1 } })).rejects.toThrow(/latencyMs/);
  });
});

describe('rateLimit', () => {
  it('N requests per second per key, then 429 with Retry-After; the next second is free again', async () => {
    m = await startAcme({ faults: { rateLimit: 2 } });
    expect((await m.get(ACME.session)).status).toBe(201);
    expect((await m.get(ACME.session)).status).toBe(201);
    const limited = await m.get(ACME.session);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key has its own budget.
    expect((await m.get(ACME.session, { key: 'globex-test-key-1' })).status).toBe(404);
    // A rate-limited creation creates nothing.
    expect((await m.create(upload)).status).toBe(429);
    expect(m.state.counts().createdSessions).toBe(0);
    m.clock.advance(1000);
    expect((await m.get(ACME.session)).status).toBe(201);
  });
});

describe('latencyMs', () => {
  it('delays every answer by at least the configured time, its own work included', async () => {
    m = await startAcme({ faults: { latencyMs: 150 } });
    const t = performance.now();
    expect((await m.get(ACME.session)).status).toBe(201);
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
  });
});

describe('dropAfterCreate', () => {
  it('drops the connection after the session was created: the outcome is unknown to the client, but the session exists', async () => {
    m = await startAcme({ faults: { dropAfterCreate: true } });
    await expect(m.create(upload)).rejects.toThrow();
    const created = m.state.org(ACME.org).createdSessions;
    expect(created).toHaveLength(1);
    expect(m.state.org(ACME.org).findUserByEmail('new.rep@acme.com')).toBeDefined();
    // The session is readable, so a client can find out what happened.
    expect((await m.get(created[0]?.id as string)).status).toBe(201);
  });
});
