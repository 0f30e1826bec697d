/**
 * POST /api/v1/real-call-sessions from the description's rules R1–R10 and D2, D3, D5, D6, D17:
 * every status and code, D3's precedence, and R9 (nothing created on any rejection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACME,
  type Booted,
  boot,
  FULL,
  GLOBEX,
  labeled,
  OPEN,
  PLAIN,
  SESSIONS_PATH,
} from './helpers.js';

let m: Booted;
beforeAll(async () => {
  m = await boot();
});
afterAll(() => m.close());

const REP_SPEAKS = labeled([
  [ACME.rep.email, 'Hello, what budget do you have?'],
  ['buyer@client.io', 'About fifty thousand.'],
]);
const REP_SILENT = labeled([
  [ACME.coach.email, 'Hello, what budget do you have?'],
  ['buyer@client.io', 'About fifty thousand.'],
]);

/** A rejection: status, D1 problem body, stable code, openapi.yaml conformance, and R9. */
async function expectRejected(
  body: Record<string, unknown>,
  status: number,
  code: string,
  key: string = ACME.key,
) {
  const before = await m.totals(key);
  const a = await m.create(body, { key });
  expect({ status: a.status, code: a.body?.code }).toEqual({ status, code });
  expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(a.body).toMatchObject({ status, code });
  expect(typeof a.body.type).toBe('string');
  expect(typeof a.body.title).toBe('string');
  expect(typeof a.body.detail).toBe('string');
  expect(a.contract).toEqual([]);
  // D1: `errors` belongs to 400 answers only.
  if (status !== 400) expect(a.body.errors).toBeUndefined();
  if (status === 400) {
    expect(Array.isArray(a.body.errors)).toBe(true);
    expect(a.body.errors.length).toBeGreaterThan(0);
    for (const e of a.body.errors) {
      expect(typeof e.path).toBe('string');
      expect(typeof e.message).toBe('string');
    }
  }
  // R9: neither user nor session was created.
  const after = await m.totals(key);
  expect(after.users).toBe(before.users);
  expect(after.sessions).toBe(before.sessions);
  return a;
}

describe('success (R1, R2, D18)', () => {
  it('answers 201 with a PENDING session of the rep designated by email', async () => {
    const a = await m.create({
      transcript: REP_SPEAKS,
      meetingName: 'Disc',
      email: ACME.rep.email,
    });
    expect(a.status).toBe(201);
    expect(a.contract).toEqual([]);
    expect(a.body).toMatchObject({
      userId: ACME.rep.id,
      state: 'PENDING',
      type: 'REAL_CALL',
      completed: false,
      participantUserIds: [], // R10, D18: unresolved at creation
    });
    expect(a.body.call.state).toBe('PENDING');
    expect(a.body.analysis.state).toBe('PENDING');
    expect(a.body.kpis.state).toBe('PENDING');
    expect(a.body.createdAt).toMatch(/Z$/);
  });

  it('attributes to the rep designated by userId', async () => {
    const a = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.coach.id });
    expect(a.status).toBe(201);
    expect(a.body.userId).toBe(ACME.coach.id);
  });

  it('D6: the rep email is compared case-insensitively (R2: existing user, no new user)', async () => {
    const before = await m.totals();
    const a = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'REP@Acme.COM' });
    expect(a.status).toBe(201);
    expect(a.body.userId).toBe(ACME.rep.id);
    expect((await m.totals()).users).toBe(before.users);
  });

  it('D6: the rep email is compared after trimming', async () => {
    const a = await m.create({ transcript: PLAIN, meetingName: 'x', email: '  rep@acme.com ' });
    // Either accepted for the existing rep, or refused as a schema failure; never a new user.
    if (a.status === 201) expect(a.body.userId).toBe(ACME.rep.id);
    else expect(a.status).toBe(400);
  });

  it('R3: an unknown email in a configured domain creates a Member and the session', async () => {
    const before = await m.totals();
    const a = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'New.Hire@ACME.com' });
    expect(a.status).toBe(201);
    const after = await m.totals();
    expect(after.users).toBe(before.users + 1);
    expect(after.sessions).toBe(before.sessions + 1);
    // D6: stored emails are lowercase.
    expect(after.emails).toContain('new.hire@acme.com');
    expect(after.emails).not.toContain('New.Hire@ACME.com');
    // The second upload for that address finds the created user (R2).
    const b = await m.create({ transcript: PLAIN, meetingName: 'y', email: 'new.hire@acme.com' });
    expect(b.body.userId).toBe(a.body.userId);
    expect((await m.totals()).users).toBe(after.users);
  });

  it('R3: a second configured domain matches too, case-insensitively (D6)', async () => {
    const a = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'uk@ACME.CO.UK' });
    expect(a.status).toBe(201);
  });

  it('D24: an existing rep uploads in an organization whose seats are all taken', async () => {
    const a = await m.create(
      { transcript: PLAIN, meetingName: 'x', email: FULL.rep.email },
      { key: FULL.key },
    );
    expect(a.status).toBe(201);
    expect(a.body.userId).toBe(FULL.rep.id);
  });

  it('D17: transcript length counts code points: 10 emoji pass', async () => {
    const a = await m.create({
      transcript: '😀'.repeat(10),
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(a.status).toBe(201);
  });

  it('D17: 100000 emoji (200000 UTF-16 units) pass, 100001 do not', async () => {
    const ok = await m.create({
      transcript: '😀'.repeat(100_000),
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(ok.status).toBe(201);
    await expectRejected(
      { transcript: '😀'.repeat(100_001), meetingName: 'x', userId: ACME.rep.id },
      400,
      'validation_failed',
    );
  });

  it('accepts exactly 10 and exactly 100000 characters, and a 1-character meeting name', async () => {
    for (const transcript of ['a'.repeat(10), 'a'.repeat(100_000)]) {
      const a = await m.create({ transcript, meetingName: 'm', userId: ACME.rep.id });
      expect(a.status).toBe(201);
    }
  });
});

describe('400 validation_failed (D2, D5, D17)', () => {
  const base = { transcript: PLAIN, meetingName: 'x' };
  const cases: [string, Record<string, unknown>][] = [
    ['both userId and email (D5)', { ...base, userId: ACME.rep.id, email: ACME.rep.email }],
    ['neither userId nor email (D5)', { ...base }],
    ['transcript of 9 characters', { ...base, transcript: '123456789', userId: ACME.rep.id }],
    [
      '9 emoji (18 UTF-16 units) (D17)',
      { ...base, transcript: '😀'.repeat(9), userId: ACME.rep.id },
    ],
    [
      'transcript of 100001 characters',
      { ...base, transcript: 'a'.repeat(100_001), userId: ACME.rep.id },
    ],
    ['missing transcript', { meetingName: 'x', userId: ACME.rep.id }],
    ['missing meetingName', { transcript: PLAIN, userId: ACME.rep.id }],
    ['empty meetingName', { ...base, meetingName: '', userId: ACME.rep.id }],
    ['transcript not a string', { ...base, transcript: 12345678901, userId: ACME.rep.id }],
    ['userId not a UUID', { ...base, userId: 'rep-1' }],
    ['email not matching the pattern', { ...base, email: 'rep@acme' }],
    ['email starting with a dot', { ...base, email: '.rep@acme.com' }],
    ['email with two dots in a row', { ...base, email: 're..p@acme.com' }],
    [
      'missionId with uppercase hex',
      { ...base, userId: ACME.rep.id, missionId: 'AAAAAAAAAAAAAAAAAAAA0101' },
    ],
    [
      'missionId of 23 characters',
      { ...base, userId: ACME.rep.id, missionId: 'aaaaaaaaaaaaaaaaaaa0101' },
    ],
    [
      'scorecardId not hex',
      { ...base, userId: ACME.rep.id, scorecardId: 'zzzzzzzzzzzzzzzzzzzzzzzz' },
    ],
    ['an unknown body field (emial)', { ...base, emial: ACME.rep.email, userId: ACME.rep.id }],
    [
      '400 before 422 (d): bad email and unknown mission',
      { ...base, email: 'x@', missionId: 'f'.repeat(24) },
    ],
  ];
  it.each(cases)('%s', async (_name, body) => {
    await expectRejected(body, 400, 'validation_failed');
  });

  it('names the unknown field in errors[].path', async () => {
    const a = await m.create({ ...base, userId: ACME.rep.id, emial: 'x' });
    expect(a.status).toBe(400);
    expect(JSON.stringify(a.body.errors)).toContain('emial');
  });

  const rawCases: [string, string, string | null][] = [
    ['malformed JSON', '{"transcript": "0123456789", ', 'application/json'],
    ['a JSON array', '[]', 'application/json'],
    [
      'a body that is not application/json',
      JSON.stringify({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id }),
      'text/plain',
    ],
    ['a form body', 'transcript=0123456789abc&meetingName=x', 'application/x-www-form-urlencoded'],
    [
      'no content type',
      JSON.stringify({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id }),
      null,
    ],
    ['an empty body', '', 'application/json'],
    ['JSON null', 'null', 'application/json'],
    ['a JSON string', '"transcript"', 'application/json'],
  ];
  it.each(rawCases)('%s', async (_name, raw, contentType) => {
    const before = await m.totals();
    const a = await m.call('createRealCallSession', 'POST', SESSIONS_PATH, { raw, contentType });
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('validation_failed');
    expect(a.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Array.isArray(a.body.errors)).toBe(true);
    expect(a.contract).toEqual([]);
    expect((await m.totals()).sessions).toBe(before.sessions);
  });

  it('a body of exactly 1 MiB is not 413 (only over 1 MiB is)', async () => {
    const base = JSON.stringify({ transcript: '', meetingName: 'x', userId: ACME.rep.id });
    const raw = JSON.stringify({
      transcript: 'a'.repeat(1024 * 1024 - base.length),
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(Buffer.byteLength(raw)).toBe(1024 * 1024);
    const a = await m.call('createRealCallSession', 'POST', SESSIONS_PATH, { raw });
    expect(a.status).toBe(400); // the transcript is too long, but the body is not too large
    expect(a.body.code).toBe('validation_failed');
  });

  it('application/json with charset=utf-8 is accepted', async () => {
    const raw = JSON.stringify({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    const a = await m.call('createRealCallSession', 'POST', SESSIONS_PATH, {
      raw,
      contentType: 'application/json; charset=utf-8',
    });
    expect(a.status).toBe(201);
  });

  it('a null optional field fails the schema (400)', async () => {
    await expectRejected(
      { ...base, userId: ACME.rep.id, missionId: null },
      400,
      'validation_failed',
    );
  });

  it('bytes that are not UTF-8 are 400', async () => {
    const json = JSON.stringify({
      transcript: 'xxxxxxxxxxxx',
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    const bytes = new TextEncoder().encode(json);
    const at = json.indexOf('xxxx') + 2;
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    const a = await m.call('createRealCallSession', 'POST', SESSIONS_PATH, { raw: bytes });
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('validation_failed');
    expect(a.contract).toEqual([]);
  });

  it('413 payload_too_large over 1 MiB, nothing created', async () => {
    const before = await m.totals();
    const raw = JSON.stringify({
      transcript: 'a'.repeat(1024 * 1024 + 10),
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    const a = await m.call('createRealCallSession', 'POST', SESSIONS_PATH, { raw });
    expect(a.status).toBe(413);
    expect(a.body.code).toBe('payload_too_large');
    expect(a.contract).toEqual([]);
    expect((await m.totals()).sessions).toBe(before.sessions);
  });
});

describe('documented rejections and their codes (D3), each creating nothing (R9)', () => {
  it('422 (d) mission_not_found', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id, missionId: 'f'.repeat(24) },
      422,
      'mission_not_found',
    );
  });
  it('422 (d) scorecard_not_found', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id, scorecardId: 'f'.repeat(24) },
      422,
      'scorecard_not_found',
    );
  });
  it('422 (d) for a mission or scorecard of another organization (D23)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id, missionId: GLOBEX.mission },
      422,
      'mission_not_found',
    );
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id, scorecardId: GLOBEX.scorecard },
      422,
      'scorecard_not_found',
    );
  });
  it('422 user_not_found for an unknown userId and for a user of another organization (D2, D23)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: 'a0000000-0000-4000-8000-000000009999' },
      422,
      'user_not_found',
    );
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', userId: GLOBEX.boss.id },
      422,
      'user_not_found',
    );
  });
  it('422 (a) rep_not_in_transcript (R8, D14), email and userId', async () => {
    await expectRejected(
      { transcript: REP_SILENT, meetingName: 'x', email: ACME.rep.email },
      422,
      'rep_not_in_transcript',
    );
    await expectRejected(
      { transcript: REP_SILENT, meetingName: 'x', userId: ACME.rep.id },
      422,
      'rep_not_in_transcript',
    );
  });
  it('422 (a) for a userId whose user has no email, on a labeled transcript (D14)', async () => {
    await expectRejected(
      { transcript: REP_SPEAKS, meetingName: 'x', userId: ACME.noEmail },
      422,
      'rep_not_in_transcript',
    );
    const plain = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.noEmail });
    expect(plain.status).toBe(201);
  });
  it('422 (b) user_creation_disabled', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'newbie@globex.io' },
      422,
      'user_creation_disabled',
      GLOBEX.key,
    );
  });
  it('422 (c) email_domain_not_allowed', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'someone@other.org' },
      422,
      'email_domain_not_allowed',
    );
  });
  it('422 (c) when no domain is configured (R3 needs a matching domain)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'fresh@open.io' },
      422,
      'email_domain_not_allowed',
      OPEN.key,
    );
  });
  it('403 seat_limit_reached (D24)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'second@full.io' },
      403,
      'seat_limit_reached',
      FULL.key,
    );
  });
  it('409 email_exists_in_identity_provider, also for a member of another organization (D23)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'taken@acme.com' },
      409,
      'email_exists_in_identity_provider',
    );
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: GLOBEX.moved.email },
      409,
      'email_exists_in_identity_provider',
    );
  });
  it('502 identity_provider_error creates nothing, and the retried upload succeeds', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'flaky@acme.com' },
      502,
      'identity_provider_error',
    );
    const before = await m.totals();
    const again = await m.create({ transcript: PLAIN, meetingName: 'x', email: 'flaky@acme.com' });
    expect(again.status).toBe(201);
    const after = await m.totals();
    expect(after.users).toBe(before.users + 1);
    expect(after.emails).toContain('flaky@acme.com');
  });
});

describe('seats are counted as users, created reps included (D24)', () => {
  it('5 users of 10 seats: five new reps are created, the sixth is 403', async () => {
    const r = await boot();
    try {
      for (let i = 0; i < 5; i++) {
        const a = await r.create({
          transcript: PLAIN,
          meetingName: 'x',
          email: `seat${i}@acme.com`,
        });
        expect(a.status, `rep ${i}`).toBe(201);
      }
      const before = await r.totals();
      expect(before.users).toBe(10);
      const a = await r.create({ transcript: PLAIN, meetingName: 'x', email: 'seat5@acme.com' });
      expect(a.status).toBe(403);
      expect(a.body.code).toBe('seat_limit_reached');
      // Existing users still upload.
      const b = await r.create({ transcript: PLAIN, meetingName: 'x', email: 'seat0@acme.com' });
      expect(b.status).toBe(201);
      expect((await r.totals()).users).toBe(10);
    } finally {
      await r.close();
    }
  });
});

describe('D3 precedence when several rejections apply', () => {
  it('422 (d) mission before 422 user_not_found', async () => {
    await expectRejected(
      {
        transcript: REP_SILENT,
        meetingName: 'x',
        userId: 'a0000000-0000-4000-8000-000000009999',
        missionId: 'f'.repeat(24),
      },
      422,
      'mission_not_found',
    );
  });
  it('422 (d) scorecard before 422 (a) and before the creation checks', async () => {
    await expectRejected(
      {
        transcript: REP_SILENT,
        meetingName: 'x',
        email: 'z@other.org',
        scorecardId: 'e'.repeat(24),
      },
      422,
      'scorecard_not_found',
    );
  });
  it('422 user_not_found before 422 (a)', async () => {
    await expectRejected(
      { transcript: REP_SILENT, meetingName: 'x', userId: 'a0000000-0000-4000-8000-000000009999' },
      422,
      'user_not_found',
    );
  });
  it('422 (a) before 422 (b)', async () => {
    const t = labeled([
      [GLOBEX.boss.email, 'hello there, budget?'],
      ['buyer@client.io', 'yes'],
    ]);
    await expectRejected(
      { transcript: t, meetingName: 'x', email: 'ghost@globex.io' },
      422,
      'rep_not_in_transcript',
      GLOBEX.key,
    );
  });
  it('422 (a) before 422 (c), 403 and 409', async () => {
    await expectRejected(
      { transcript: REP_SILENT, meetingName: 'x', email: 'z@other.org' },
      422,
      'rep_not_in_transcript',
    );
    await expectRejected(
      { transcript: REP_SILENT, meetingName: 'x', email: 'taken@acme.com' },
      422,
      'rep_not_in_transcript',
    );
  });
  it('422 (b) before 422 (c)', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'z@other.org' },
      422,
      'user_creation_disabled',
      GLOBEX.key,
    );
  });
  it('422 (c) before 403', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'z@other.org' },
      422,
      'email_domain_not_allowed',
      FULL.key,
    );
  });
  it('403 before 409', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'taken@full.io' },
      403,
      'seat_limit_reached',
      FULL.key,
    );
  });
  it('409 before 502', async () => {
    await expectRejected(
      { transcript: PLAIN, meetingName: 'x', email: 'both@acme.com' },
      409,
      'email_exists_in_identity_provider',
    );
  });
  it('the creation checks apply only when the rep must be created', async () => {
    // An existing rep in an organization with creation off, no domain, seats unlimited.
    const a = await m.create(
      { transcript: PLAIN, meetingName: 'x', email: GLOBEX.boss.email },
      { key: GLOBEX.key },
    );
    expect(a.status).toBe(201);
    expect(a.body.userId).toBe(GLOBEX.boss.id);
  });
});
