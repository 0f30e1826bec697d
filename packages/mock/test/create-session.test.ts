import { loadFixtureFile } from '@rcs/mock/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ACME,
  ACME_FIXTURE,
  type Acme,
  GLOBEX,
  labeledSrt,
  startAcme,
} from './helpers/mock-server.js';

/**
 * Session creation through real HTTP: rules 1–10, every status of the description and D2/D3,
 * and for every rejection the proof that nothing was created (R9).
 */

let m: Acme;
beforeEach(async () => {
  m = await startAcme();
});
afterEach(() => m.close());

const PLAIN = 'We talked about the budget and the next step for the roll-out.';
const repCall = (rep: string = ACME.rep.email) =>
  labeledSrt([
    [rep, 'Thanks for joining. What budget do you have in mind?'],
    ['buyer@client.io', 'Around fifty thousand.'],
  ]);

/** Everything a rejected upload must leave untouched (R9). */
function snapshot(a: Acme) {
  const acme = a.state.org(ACME.org);
  const globex = a.state.org(GLOBEX.org);
  return {
    counts: a.state.counts(),
    acmeUsers: acme.userCount,
    acmeSessions: acme.sessionCount,
    globexUsers: globex.userCount,
    globexSessions: globex.sessionCount,
  };
}

async function expectRejected(
  body: Record<string, unknown>,
  status: number,
  code: string,
  key: string = ACME.key,
) {
  const before = snapshot(m);
  const r = await m.create(body, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code, type: `https://rcs.dev/problems/${code}` });
  expect(r.body.detail.length).toBeGreaterThan(0);
  // R9: neither user nor session, no seat used, in any organization.
  expect(snapshot(m)).toEqual(before);
  // The export agrees with the state handle.
  const users = await m.exportPage('exportUsers', '/api/v1/data-exports/users', 'limit=100', {
    key,
  });
  const sessions = await m.exportPage(
    'exportRealCallSessions',
    '/api/v1/data-exports/real-call-sessions',
    'limit=100',
    { key },
  );
  const org = key === ACME.key ? 'acme' : 'globex';
  expect(users.body.meta.total).toBe(before[`${org}Users`]);
  expect(sessions.body.meta.total).toBe(before[`${org}Sessions`]);
  return r;
}

describe('201: session created', () => {
  it('R2: attributes to the existing user with that email, answers PENDING with unresolved participants (R10, D18)', async () => {
    const r = await m.create({
      transcript: repCall(),
      meetingName: 'Discovery',
      email: ACME.rep.email,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      userId: ACME.rep.id,
      state: 'PENDING',
      completed: false,
      type: 'REAL_CALL',
      participantUserIds: [],
      call: { state: 'PENDING' },
      analysis: { state: 'PENDING', items: [], score: 0 },
      kpis: { state: 'PENDING' },
    });
    expect(r.headers.get('location')).toBe(`/api/v1/real-call-sessions/${r.body.id}`);
    expect(m.state.counts()).toEqual({ createdUsers: 0, createdSessions: 1 });
  });

  it('D6: the email is compared case-insensitively (fixture emails are stored lowercase)', async () => {
    const r = await m.create({
      transcript: labeledSrt([['manager@acme.com', 'What is your budget?']]),
      meetingName: 'x',
      email: 'MANAGER@Acme.COM',
    });
    expect(r.status).toBe(201);
    expect(r.body.userId).toBe(ACME.manager.id);
  });

  it('R1: by userId', async () => {
    const r = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    expect(r.status).toBe(201);
    expect(r.body.userId).toBe(ACME.rep.id);
  });

  it('R3: an unknown email of a configured domain creates a Member who must set a password', async () => {
    const before = m.state.org(ACME.org).userCount;
    const r = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'New.Hire@acme.com' });
    expect(r.status).toBe(201);
    const acme = m.state.org(ACME.org);
    expect(acme.userCount).toBe(before + 1);
    expect(acme.createdUsers).toHaveLength(1);
    expect(acme.createdUsers[0]).toMatchObject({
      reason: 'rep',
      role: 'Member',
      mustSetPassword: true,
      sessionId: r.body.id,
      user: { id: r.body.userId, email: 'new.hire@acme.com' },
    });
    const users = await m.exportPage('exportUsers', '/api/v1/data-exports/users', 'limit=100');
    expect(users.body.data.map((u: { email: string }) => u.email)).toContain('new.hire@acme.com');
  });

  it('R8 / D14: plain text and unlabeled SRT never fail the rep-speaks rule; non-email labels alone do not make it labeled', async () => {
    const unlabeled = '1\n00:00:01,000 --> 00:00:03,000\nHello there, what is the budget?\n';
    const roleLabels =
      '1\n00:00:01,000 --> 00:00:03,000\nClient: Hello there, what is the budget?\n';
    for (const transcript of [PLAIN, unlabeled, roleLabels]) {
      const r = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
      expect(r.status, transcript).toBe(201);
    }
  });

  it('D17: lengths are counted in code points (10 emoji pass, 9 do not)', async () => {
    const ok = await m.create({
      transcript: '😀'.repeat(10),
      meetingName: 'x',
      email: ACME.rep.email,
    });
    expect(ok.status).toBe(201);
    await expectRejected(
      { transcript: '😀'.repeat(9), meetingName: 'x', email: ACME.rep.email },
      400,
      'validation_failed',
    );
  });
});

describe('422: documented rejections', () => {
  it('(a) rep_not_in_transcript: speaker-labeled and the rep never speaks', async () => {
    const r = await expectRejected(
      { transcript: repCall('manager@acme.com'), meetingName: 'x', email: ACME.rep.email },
      422,
      'rep_not_in_transcript',
    );
    // The detail names the rep as the request did.
    expect(r.body.detail).toBe(
      `The transcript is speaker-labeled but ${ACME.rep.email} never speaks in it.`,
    );
  });

  it('(a) also for a userId rep without an email in a labeled transcript', async () => {
    const r = await expectRejected(
      { transcript: repCall(), meetingName: 'x', userId: ACME.noEmailUserId },
      422,
      'rep_not_in_transcript',
    );
    expect(r.body.detail).toBe(
      `The transcript is speaker-labeled but user ${ACME.noEmailUserId} never speaks in it.`,
    );
  });

  it('(a) for a rep who would be created: checked before creation (D3)', async () => {
    await expectRejected(
      { transcript: repCall(), meetingName: 'x', email: 'newbie@acme.com' },
      422,
      'rep_not_in_transcript',
    );
  });

  it('(b) user_creation_disabled: no account and automatic creation off', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'someone@globex.io' },
      422,
      'user_creation_disabled',
      GLOBEX.key,
    );
  });

  it('(c) email_domain_not_allowed: domain not configured', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'someone@other.com' },
      422,
      'email_domain_not_allowed',
    );
  });

  it('(d) mission_not_found and scorecard_not_found', async () => {
    await expectRejected(
      {
        transcript: PLAIN,
        meetingName: 'x',
        email: ACME.rep.email,
        missionId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      },
      422,
      'mission_not_found',
    );
    await expectRejected(
      {
        transcript: PLAIN,
        meetingName: 'x',
        email: ACME.rep.email,
        scorecardId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      },
      422,
      'scorecard_not_found',
    );
  });

  it('D2 user_not_found: a userId that is no user of the caller organization', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: '11111111-2222-4333-8444-555555555555' },
      422,
      'user_not_found',
    );
    // D23: another organization's user is no user of this one.
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: GLOBEX.boss.id },
      422,
      'user_not_found',
    );
  });
});

describe('403, 409, 502: creating the rep', () => {
  it('403 seat_limit_reached when users reach seatLimit (D24), and only when the rep must be created', async () => {
    // Acme: seatLimit 5, 3 users.
    expect(
      (await m.create({ transcript: PLAIN, meetingName: 'x', email: 'a@acme.com' })).status,
    ).toBe(201);
    expect(
      (await m.create({ transcript: PLAIN, meetingName: 'x', email: 'b@acme.com' })).status,
    ).toBe(201);
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'c@acme.com' },
      403,
      'seat_limit_reached',
    );
    // Existing users still upload.
    expect(
      (await m.create({ transcript: PLAIN, meetingName: 'x', email: ACME.rep.email })).status,
    ).toBe(201);
  });

  it('409 email_exists_in_identity_provider: known to the identity provider outside this organization (D23)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'taken@acme.com' },
      409,
      'email_exists_in_identity_provider',
    );
  });

  it('409 for a member of another organization of a configured domain', async () => {
    const fixture = structuredClone(await loadFixtureFile(ACME_FIXTURE));
    const boss = fixture.organizations[1]?.users[0];
    if (!boss) throw new Error('fixture changed: Globex has no user');
    boss.email = 'moved@acme.com';
    const other = await startAcme({ fixture });
    try {
      const r = await other.create({
        transcript: PLAIN,
        meetingName: 'x',
        email: 'moved@acme.com',
      });
      expect(r.status).toBe(409);
      expect(other.state.counts()).toEqual({ createdUsers: 0, createdSessions: 0 });
    } finally {
      await other.close();
    }
  });

  it('409 for a user another organization created a moment ago (the identity provider is global, D23)', async () => {
    const fixture = structuredClone(await loadFixtureFile(ACME_FIXTURE));
    const globex = fixture.organizations[1];
    if (!globex) throw new Error('fixture changed: no Globex');
    globex.settings = { autoCreateUsers: true, emailDomains: ['acme.com'] };
    const both = await startAcme({ fixture });
    try {
      const first = await both.create({
        transcript: PLAIN,
        meetingName: 'x',
        email: 'shared@acme.com',
      });
      expect(first.status).toBe(201);
      const second = await both.create(
        { transcript: PLAIN, meetingName: 'x', email: 'shared@acme.com' },
        { key: GLOBEX.key },
      );
      expect(second.status).toBe(409);
      expect(both.state.org(GLOBEX.org).createdUsers).toHaveLength(0);
    } finally {
      await both.close();
    }
  });

  it('502 identity_provider_error: refused, nothing created, and the retry succeeds', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'flaky@acme.com' },
      502,
      'identity_provider_error',
    );
    const retry = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'flaky@acme.com' });
    expect(retry.status).toBe(201);
  });
});

describe('D3: the first applicable rejection is answered', () => {
  it('400 before anything else', async () => {
    await expectRejected(
      {
        transcript: 'short',
        meetingName: 'x',
        userId: '11111111-2222-4333-8444-555555555555',
        missionId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      },
      400,
      'validation_failed',
    );
  });
  it('422 (d) before user_not_found', async () => {
    await expectRejected(
      {
        transcript: PLAIN,
        meetingName: 'x',
        userId: '11111111-2222-4333-8444-555555555555',
        missionId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      },
      422,
      'mission_not_found',
    );
  });
  it('user_not_found before rep_not_in_transcript', async () => {
    await expectRejected(
      {
        transcript: repCall('manager@acme.com'),
        meetingName: 'x',
        userId: '11111111-2222-4333-8444-555555555555',
      },
      422,
      'user_not_found',
    );
  });
  it('rep_not_in_transcript before user_creation_disabled', async () => {
    await expectRejected(
      { transcript: repCall('boss@globex.io'), meetingName: 'x', email: 'someone@globex.io' },
      422,
      'rep_not_in_transcript',
      GLOBEX.key,
    );
  });
  it('email_domain_not_allowed before seat_limit_reached, seat_limit_reached before 409', async () => {
    await m.create({ transcript: PLAIN, meetingName: 'x', email: 'a@acme.com' });
    await m.create({ transcript: PLAIN, meetingName: 'x', email: 'b@acme.com' });
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'x@other.com' },
      422,
      'email_domain_not_allowed',
    );
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'taken@acme.com' },
      403,
      'seat_limit_reached',
    );
  });
});

describe('400 validation_failed (D2, D5)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'both userId and email (D5)',
      { transcript: PLAIN, meetingName: 'x', email: ACME.rep.email, userId: ACME.rep.id },
      '',
    ],
    ['neither userId nor email (D5)', { transcript: PLAIN, meetingName: 'x' }, ''],
    ['an unknown field', { transcript: PLAIN, meetingName: 'x', emial: ACME.rep.email }, '/emial'],
    [
      'an empty meetingName',
      { transcript: PLAIN, meetingName: '', email: ACME.rep.email },
      '/meetingName',
    ],
    ['a missing transcript', { meetingName: 'x', email: ACME.rep.email }, '/transcript'],
    [
      'a transcript over 100000 characters',
      { transcript: 'a'.repeat(100_001), meetingName: 'x', email: ACME.rep.email },
      '/transcript',
    ],
    [
      'a transcript of the wrong type',
      { transcript: 12345678901, meetingName: 'x', email: ACME.rep.email },
      '/transcript',
    ],
    [
      'an email off the pattern',
      { transcript: PLAIN, meetingName: 'x', email: 'rep@@acme.com' },
      '/email',
    ],
    [
      'an uppercase missionId',
      {
        transcript: PLAIN,
        meetingName: 'x',
        email: ACME.rep.email,
        missionId: ACME.mission.toUpperCase(),
      },
      '/missionId',
    ],
    [
      'a userId that is no UUID',
      { transcript: PLAIN, meetingName: 'x', userId: 'rita' },
      '/userId',
    ],
  ];
  for (const [what, body, path] of cases) {
    it(`for ${what}`, async () => {
      const r = await expectRejected(body, 400, 'validation_failed');
      expect(r.body.errors.length).toBeGreaterThan(0);
      expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  }
});
