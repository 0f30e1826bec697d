import { computeKpis, parseTranscript } from '@rcs/transcript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, type Acme, GLOBEX, labeledSrt, startAcme } from './helpers/mock-server.js';

/** D18 lifecycle in virtual time, D15 participants, D16 stored text, D19–D21 scoring and KPIs. */

let m: Acme;
beforeEach(async () => {
  m = await startAcme({ processingMs: 4000 });
});
afterEach(() => m.close());

const exportOf = async (id: string) => {
  const page = await m.exportPage(
    'exportRealCallSessions',
    '/api/v1/data-exports/real-call-sessions',
    'limit=100',
  );
  return page.body.data.find((s: { id: string }) => s.id === id);
};

describe('D18 lifecycle on the injected clock', () => {
  it('PENDING, then PROCESSING, then DONE once processingMs has passed; lastUpdatedAt moves on each change', async () => {
    const transcript = labeledSrt([
      [ACME.rep.email, 'What budget do you have? Who will approve it?'],
    ]);
    const created = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    const id = created.body.id;
    const t0 = created.body.createdAt;

    const pending = await m.get(id);
    expect(pending.body).toMatchObject({ state: 'PENDING', lastUpdatedAt: t0 });
    // D10: exported before DONE, with an empty analysis.
    expect(await exportOf(id)).toMatchObject({
      completed: false,
      analysis: { score: 0, items: [] },
    });

    m.clock.advance(2000);
    const processing = await m.get(id);
    expect(processing.body).toMatchObject({
      state: 'PROCESSING',
      analysis: { state: 'PROCESSING' },
      participantUserIds: [],
    });
    expect(Date.parse(processing.body.lastUpdatedAt)).toBeGreaterThan(Date.parse(t0));

    m.clock.advance(2000);
    const done = await m.get(id);
    expect(done.body).toMatchObject({
      state: 'DONE',
      call: { state: 'DONE' },
      analysis: { state: 'DONE' },
      kpis: { state: 'DONE' },
      participantUserIds: [ACME.rep.id],
    });
    expect(Date.parse(done.body.lastUpdatedAt)).toBe(Date.parse(t0) + 4000);
    expect((await exportOf(id)).analysis.items.length).toBe(3);
  });

  it('processingMs 0: the creation answer is PENDING (R10), the next read DONE', async () => {
    const fast = await startAcme({ processingMs: 0 });
    try {
      const c = await fast.create({
        transcript: 'We discussed the budget today.',
        meetingName: 'x',
        email: ACME.rep.email,
      });
      expect(c.body.state).toBe('PENDING');
      expect((await fast.get(c.body.id)).body.state).toBe('DONE');
    } finally {
      await fast.close();
    }
  });
});

describe('D19 scoring and D20 scorecard choice', () => {
  it('scores only what the rep says; undetected when no keyword occurs at all; evidence quotes the rep', async () => {
    const transcript = labeledSrt([
      [ACME.rep.email, 'What budget and spend do you plan?'],
      ['buyer@client.io', 'Our decision needs the board to approve.'],
      [ACME.rep.email, 'Great.'],
    ]);
    const c = await m.create({
      transcript,
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.scorecard,
    });
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    const [budget, decision, next] = s.analysis.items;
    expect(budget).toMatchObject({ name: 'Asks about budget', score: 100, solved: 'solved' });
    expect(budget.behaviours[0].evidence).toEqual(['What budget and spend do you plan?']);
    // The buyer said the keywords, the rep did not: detected but not solved.
    expect(decision).toMatchObject({ score: 0, solved: 'notSolved', behaviours: [] });
    expect(next).toMatchObject({ score: 0, solved: 'undetected' });
    expect(s.analysis.score).toBe(33);
    expect(s.completed).toBe(false);
    // D10: the export maps undetected to notSolved and score to itemScore.
    const e = await exportOf(c.body.id);
    expect(
      e.analysis.items.map((i: { solved: string; itemScore: number }) => [i.solved, i.itemScore]),
    ).toEqual([
      ['solved', 100],
      ['notSolved', 0],
      ['notSolved', 0],
    ]);
  });

  it('completed exactly when DONE and score >= 70; partlySolved between 30 and 69', async () => {
    const transcript = labeledSrt([
      [ACME.rep.email, 'Budget and spend first.'],
      [ACME.rep.email, 'Who makes the decision and who will approve?'],
      [ACME.rep.email, 'Next step: a follow up in the calendar.'],
    ]);
    const c = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    expect(c.body.completed).toBe(false);
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    expect(s.analysis.score).toBe(100);
    expect(s.completed).toBe(true);

    const partial = await m.create({
      transcript: 'We covered the budget, the decision and the next step.',
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.scorecard,
    });
    m.clock.advance(4000);
    const p = (await m.get(partial.body.id)).body;
    expect(p.analysis.items.map((i: { solved: string }) => i.solved)).toEqual([
      'partlySolved',
      'partlySolved',
      'partlySolved',
    ]);
  });

  it('D20: the mission scorecard; else the best keyword overlap; language follows the scorecard', async () => {
    const byMission = await m.create({
      transcript: 'We discussed the budget.',
      meetingName: 'x',
      email: ACME.rep.email,
      missionId: ACME.germanMission,
    });
    expect(byMission.body).toMatchObject({
      scorecardReferenceId: ACME.germanScorecard,
      language: 'de',
      missionReferenceId: ACME.germanMission,
      missionTitle: 'Demo basics',
    });
    const byOverlap = await m.create({
      transcript: 'Ich zeige das Dashboard und den Bericht.',
      meetingName: 'x',
      email: ACME.rep.email,
    });
    expect(byOverlap.body).toMatchObject({
      scorecardReferenceId: ACME.germanScorecard,
      language: 'de',
    });
    const tie = await m.create({
      transcript: 'Nothing relevant was said here.',
      meetingName: 'x',
      email: ACME.rep.email,
    });
    // Ties (here: no overlap anywhere) go to the first scorecard by id.
    expect(tie.body).toMatchObject({ scorecardReferenceId: ACME.scorecard, language: 'en' });
  });

  it('D18: analysis SKIPPED when the organization has no scorecard', async () => {
    const c = await m.create(
      { transcript: 'We discussed the budget.', meetingName: 'x', email: GLOBEX.boss.email },
      { key: GLOBEX.key },
    );
    expect(c.body.language).toBe('en');
    m.clock.advance(4000);
    const s = (await m.get(c.body.id, { key: GLOBEX.key })).body;
    expect(s).toMatchObject({
      state: 'DONE',
      analysis: { state: 'SKIPPED', items: [], score: 0 },
      completed: false,
    });
  });
});

describe('D21 KPIs through @rcs/transcript', () => {
  it('are what the transcript package computes for the rep', async () => {
    const transcript = labeledSrt([
      [ACME.rep.email, 'Hello, thanks for the time today, let us talk budget.'],
      ['buyer@client.io', 'Sure.'],
      [ACME.rep.email, 'Great, and who will approve it?'],
    ]);
    const c = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    const expected = computeKpis(
      parseTranscript(transcript, { emailDomains: ['acme.com'] }),
      ACME.rep.email,
    );
    expect(expected.listenRatio).not.toBeNull();
    expect(s.kpis).toMatchObject({ state: 'DONE', ...expected });
  });

  it('are SKIPPED for plain text (no timing)', async () => {
    const c = await m.create({
      transcript: 'We discussed the budget.',
      meetingName: 'x',
      email: ACME.rep.email,
    });
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    expect(s.kpis).toMatchObject({
      state: 'SKIPPED',
      listenRatio: null,
      longestMonologue: null,
      talkSpeed: null,
    });
    // D15: no speaker attribution, no participants.
    expect(s.participantUserIds).toEqual([]);
  });
});

describe('D15 participants and R5 provisioning', () => {
  it('rep first, then internal speakers in first-speaking order; unknown internal speakers are created; externals never', async () => {
    const transcript = labeledSrt([
      ['buyer@client.io', 'Hi all.'],
      ['new.colleague@acme.com', 'Hello, I joined to help.'],
      [ACME.rep.email, 'What is the budget?'],
      ['Manager@Acme.com', 'And who will approve?'],
      ['new.colleague@acme.com', 'One more thing.'],
    ]);
    const c = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    expect(m.state.org(ACME.org).createdUsers).toHaveLength(0);
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    const created = m.state.org(ACME.org).createdUsers;
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      reason: 'participant',
      role: 'Member',
      user: { email: 'new.colleague@acme.com' },
    });
    expect(s.participantUserIds).toEqual([ACME.rep.id, created[0]?.user.id, ACME.manager.id]);
    expect(m.state.org(ACME.org).findUserByEmail('buyer@client.io')).toBeUndefined();
    // The scoring counts only the rep's lines (R7).
    expect(s.analysis.items[1].score).toBe(0);
  });

  it('processing happens when its time has come, whatever is read: the users export shows a provisioned participant', async () => {
    const transcript = labeledSrt([
      [ACME.rep.email, 'What is the budget?'],
      ['helper@acme.com', 'I can help.'],
    ]);
    await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    const emails = async () =>
      (await m.exportPage('exportUsers', '/api/v1/data-exports/users', 'limit=100')).body.data.map(
        (u: { email: string | null }) => u.email,
      );
    expect(await emails()).not.toContain('helper@acme.com');
    m.clock.advance(4000);
    expect(await emails()).toContain('helper@acme.com');
  });

  it('unknown internal speakers stay unattributed when no seat is free (D24) or the identity provider knows them (D23)', async () => {
    await m.create({
      transcript: 'We discussed the budget.',
      meetingName: 'x',
      email: 'a@acme.com',
    });
    await m.create({
      transcript: 'We discussed the budget.',
      meetingName: 'x',
      email: 'b@acme.com',
    });
    // 5 of 5 seats used now.
    const transcript = labeledSrt([
      [ACME.rep.email, 'What is the budget?'],
      ['c@acme.com', 'I am new here.'],
      ['taken@acme.com', 'Me too.'],
    ]);
    const c = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    m.clock.advance(4000);
    const s = (await m.get(c.body.id)).body;
    // Never a rejection: the upload was answered long before (D15).
    expect(s.state).toBe('DONE');
    expect(s.participantUserIds).toEqual([ACME.rep.id]);
    expect(m.state.org(ACME.org).userCount).toBe(5);
  });

  it('no provisioning when automatic creation is off: the turns stay unattributed', async () => {
    const transcript = labeledSrt([
      [GLOBEX.boss.email, 'Hello.'],
      ['newbie@globex.io', 'Hi.'],
    ]);
    const c = await m.create(
      { transcript, meetingName: 'x', email: GLOBEX.boss.email },
      { key: GLOBEX.key },
    );
    m.clock.advance(4000);
    const s = (await m.get(c.body.id, { key: GLOBEX.key })).body;
    expect(s.participantUserIds).toEqual([GLOBEX.boss.id]);
    expect(m.state.counts().createdUsers).toBe(0);
  });
});

describe('D16 stored transcript', () => {
  it('takes removed (non-email) labels out and keeps e-mail labels and other colons', async () => {
    const transcript =
      '1\n00:00:01,000 --> 00:00:03,000\nrep@acme.com: Meet at 10:30 works?\n\n2\n00:00:04,000 --> 00:00:06,000\nClient: See https://x.io please\n';
    const c = await m.create({ transcript, meetingName: 'x', email: ACME.rep.email });
    expect(c.body.call.transcript).toContain('rep@acme.com: Meet at 10:30 works?');
    expect(c.body.call.transcript).toContain('See https://x.io please');
    expect(c.body.call.transcript).not.toContain('Client:');
    expect((await exportOf(c.body.id)).transcript).toBe(c.body.call.transcript);
  });
});
