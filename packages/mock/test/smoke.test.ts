import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Acme, labeledSrt, startAcme } from './helpers/mock-server.js';

let m: Acme;
beforeAll(async () => {
  m = await startAcme();
});
afterAll(() => m.close());

describe('smoke', () => {
  it('creates and reads a session', async () => {
    const r = await m.create({
      transcript: labeledSrt([
        ['rep@acme.com', 'What budget do you have? Who will approve it?'],
        ['buyer@client.io', 'Fifty thousand.'],
      ]),
      meetingName: 'Discovery',
      email: 'rep@acme.com',
    });
    expect(r.status).toBe(201);
    expect(r.body.state).toBe('PENDING');
    m.clock.advance(5000);
    const g = await m.get(r.body.id);
    expect(g.status).toBe(201);
    expect(g.body.state).toBe('DONE');
    console.log(JSON.stringify(g.body, null, 1));
    const e = await m.exportPage(
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
    );
    console.log(JSON.stringify(e.body.meta));
    expect(ACME.key).toBeTruthy();
  });
});
