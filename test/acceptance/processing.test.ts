/**
 * After creation: read by id (D4), the lifecycle (D18), labels and the stored transcript
 * (R4–R6, D11–D13, D16), participants and their provisioning (R5, R7, D15, D24), scoring and
 * scorecard choice (D19, D20), KPIs (D21), and the session export while processing (D10).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACME, type Booted, boot, FULL, GLOBEX, labeled, OPEN, PLAIN, srt } from './helpers.js';

let m: Booted;
beforeEach(async () => {
  m = await boot({ processingMs: 4000 });
});
afterEach(() => m.close());

const SESSIONS_EXPORT = '/api/v1/data-exports/real-call-sessions';

async function createDone(body: Record<string, unknown>, key: string = ACME.key) {
  const c = await m.create(body, { key });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  m.clock.advance(4001);
  const g = await m.get(c.body.id, { key });
  expect(g.status).toBe(201);
  expect(g.contract).toEqual([]);
  expect(g.body.state).toBe('DONE');
  return { created: c.body, done: g.body };
}

async function exportedSession(id: string, key: string = ACME.key) {
  const e = await m.exp('exportRealCallSessions', SESSIONS_EXPORT, 'limit=100', { key });
  expect(e.contract).toEqual([]);
  // biome-ignore lint/suspicious/noExplicitAny: the page was checked against openapi.yaml above
  type Rec = Record<string, any>;
  return (e.body.data as Rec[]).find((r) => r.id === id);
}

describe('read by id (D4, D2, D23)', () => {
  it('answers 201 with the same session shape as creation', async () => {
    const c = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    const g = await m.get(c.body.id);
    expect(g.status).toBe(201);
    expect(g.contract).toEqual([]);
    expect(g.body.id).toBe(c.body.id);
    expect(g.body.userId).toBe(ACME.rep.id);
  });
  it('404 not_found for an unknown id', async () => {
    const g = await m.get('9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4');
    expect(g.status).toBe(404);
    expect(g.body.code).toBe('not_found');
    expect(g.contract).toEqual([]);
  });
  it('404 (never 403) for a session of another organization', async () => {
    const c = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    const g = await m.get(c.body.id, { key: GLOBEX.key });
    expect(g.status).toBe(404);
    expect(g.body.code).toBe('not_found');
    expect(g.contract).toEqual([]);
  });
  it('D25 sessionIds: nil, max, any version and variant are looked up (404); a malformed id is 400', async () => {
    for (const id of [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '9b2d7c4e-1f3a-0b5c-8d6e-7f8091a2b3c4',
      '9b2d7c4e-1f3a-4b5c-cd6e-7f8091a2b3c4',
      '9B2D7C4E-1F3A-4B5C-8D6E-7F8091A2B3C4',
    ]) {
      const g = await m.get(id);
      expect(g.status, id).toBe(404);
      expect(g.contract).toEqual([]);
    }
    for (const id of [
      '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c',
      '9b2d7c4e1f3a-4b5c-8d6e-7f8091a2b3c4x',
    ]) {
      const g = await m.get(id);
      expect(g.status, id).toBe(400);
      expect(g.body.code).toBe('validation_failed');
    }
  });
  it('400 validation_failed for an id that is not a UUID', async () => {
    const g = await m.get('not-a-uuid');
    expect(g.status).toBe(400);
    expect(g.body.code).toBe('validation_failed');
    expect(g.contract).toEqual([]);
  });
});

describe('lifecycle (D18, D19)', () => {
  it('PENDING at creation, DONE once processingMs has passed, lastUpdatedAt moved', async () => {
    const t = labeled([
      [ACME.rep.email, 'What budget and spend do you plan?'],
      ['buyer@client.io', 'Fifty.'],
    ]);
    const c = await m.create({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(c.body.state).toBe('PENDING');
    m.clock.advance(1000);
    const early = await m.get(c.body.id);
    expect(['PENDING', 'PROCESSING']).toContain(early.body.state);
    expect(early.body.completed).toBe(false);
    expect(early.body.participantUserIds ?? []).toEqual([]);
    m.clock.advance(3000);
    const g = await m.get(c.body.id);
    expect(g.contract).toEqual([]);
    expect(g.body.state).toBe('DONE');
    expect(g.body.call.state).toBe('DONE');
    expect(g.body.analysis.state).toBe('DONE');
    expect(g.body.kpis.state).toBe('DONE');
    for (const item of g.body.analysis.items) expect(item.state).toBe('DONE');
    expect(Date.parse(g.body.lastUpdatedAt)).toBeGreaterThan(Date.parse(g.body.createdAt));
    expect(g.body.createdAt).toBe(c.body.createdAt);
    expect(g.body.participantUserIds).toEqual([ACME.rep.id]);
  });

  it('PROCESSING is reached between creation and DONE', async () => {
    const c = await m.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      m.clock.advance(500);
      seen.add((await m.get(c.body.id)).body.state);
    }
    expect(seen.has('PROCESSING')).toBe(true);
    expect(seen.has('DONE')).toBe(true);
  });

  it('processingMs 0: created PENDING, DONE on the first read (real time)', async () => {
    const z = await boot({ processingMs: 0, realTime: true });
    try {
      const c = await z.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
      expect(c.body.state).toBe('PENDING');
      const g = await z.get(c.body.id);
      expect(g.body.state).toBe('DONE');
    } finally {
      await z.close();
    }
  });

  it('processingMs in real time: DONE after the time has passed (the default clock is Date)', async () => {
    // Only Date is faked: the sockets and their timers run as usual.
    vi.useFakeTimers({ toFake: ['Date'] });
    const z = await boot({ processingMs: 300, realTime: true });
    try {
      const c = await z.create({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
      expect((await z.get(c.body.id)).body.state).not.toBe('DONE');
      vi.setSystemTime(Date.now() + 450);
      expect((await z.get(c.body.id)).body.state).toBe('DONE');
    } finally {
      await z.close();
      vi.useRealTimers();
    }
  });

  it('D19: items solved per score bands, completed iff DONE and score >= 70', async () => {
    const t = labeled([
      [ACME.rep.email, 'Let us talk budget and spend.'],
      ['buyer@client.io', 'We compare every competitor and vendor.'],
      [ACME.rep.email, 'And the timeline for the rival offer?'],
    ]);
    const { done } = await createDone({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.discovery,
    });
    const items = done.analysis.items as { name: string; score: number; solved: string }[];
    expect(items.map((i) => i.name).sort()).toEqual(['Budget', 'Competitors', 'Timeline']);
    for (const i of items) {
      expect(i.score).toBeGreaterThanOrEqual(0);
      expect(i.score).toBeLessThanOrEqual(100);
      if (i.solved === 'undetected') continue;
      const band = i.score >= 70 ? 'solved' : i.score >= 30 ? 'partlySolved' : 'notSolved';
      expect(i.solved, i.name).toBe(band);
    }
    const byName = Object.fromEntries(items.map((i) => [i.name, i]));
    // Rep says both budget keywords, one of two timeline ones, one of four competitor ones.
    expect(byName.Budget?.solved).toBe('solved');
    expect(byName.Timeline?.solved).toBe('partlySolved');
    expect(byName.Competitors?.solved).toBe('notSolved');
    expect(byName.Budget!.score).toBeGreaterThan(byName.Timeline!.score);
    expect(byName.Timeline!.score).toBeGreaterThan(byName.Competitors!.score);
    // Evidence quotes the rep's lines (D19).
    const budget = done.analysis.items.find((i: { name: string }) => i.name === 'Budget');
    const evidence = budget.behaviours.flatMap((b: { evidence: string[] }) => b.evidence);
    expect(evidence.join(' ')).toContain('budget and spend');
    // Only the rep's lines are quoted: the buyer's competitor line is no evidence.
    const allEvidence = done.analysis.items
      .flatMap((i: { behaviours?: { evidence: string[] }[] }) => i.behaviours ?? [])
      .flatMap((b: { evidence: string[] }) => b.evidence)
      .join('\n');
    expect(allEvidence).not.toContain('We compare every competitor');
    expect(done.completed).toBe(done.analysis.score >= 70);
  });

  it('D19: undetected when no keyword of the item occurs at all', async () => {
    const t = labeled([
      [ACME.rep.email, 'Budget and spend?'],
      ['buyer@client.io', 'Fine.'],
    ]);
    const { done } = await createDone({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.discovery,
    });
    const timeline = done.analysis.items.find((i: { name: string }) => i.name === 'Timeline');
    expect(timeline.solved).toBe('undetected');
  });

  it('D19: a full-score call is completed, an empty one is not', async () => {
    const all = labeled([
      [ACME.rep.email, 'budget spend timeline deadline competitor alternative vendor rival'],
      ['buyer@client.io', 'ok'],
    ]);
    const high = await createDone({
      transcript: all,
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.discovery,
    });
    expect(high.done.analysis.score).toBeGreaterThanOrEqual(70);
    expect(high.done.completed).toBe(true);
    expect(high.created.completed).toBe(false); // not DONE yet
    const low = await createDone({
      transcript: labeled([
        [ACME.rep.email, 'Hello there how are you today'],
        ['buyer@client.io', 'ok'],
      ]),
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.discovery,
    });
    expect(low.done.analysis.score).toBeLessThan(70);
    expect(low.done.completed).toBe(false);
  });

  it('R7: only the rep is scored: keywords said by others do not count', async () => {
    const t = labeled([
      [ACME.rep.email, 'Hello there how are you today'],
      [ACME.coach.email, 'budget spend timeline deadline competitor alternative vendor rival'],
    ]);
    const { done } = await createDone({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
      scorecardId: ACME.discovery,
    });
    expect(done.analysis.score).toBeLessThan(30);
    expect(done.completed).toBe(false);
    // The keywords do occur (said by the coach), so no item is `undetected` (D19): each is
    // `notSolved` with the rep's score.
    for (const item of done.analysis.items) expect(item.solved, item.name).toBe('notSolved');
  });
});

describe('scorecard choice and language (D20)', () => {
  it('scorecardId wins over missionId', async () => {
    const { done } = await createDone({
      transcript: PLAIN,
      meetingName: 'x',
      userId: ACME.rep.id,
      missionId: ACME.discoveryMission,
      scorecardId: ACME.german,
    });
    expect(done.scorecardReferenceId).toBe(ACME.german);
    expect(done.language).toBe('de');
  });
  it("the mission's scorecard when only missionId is given", async () => {
    const { done } = await createDone({
      transcript: PLAIN,
      meetingName: 'x',
      userId: ACME.rep.id,
      missionId: ACME.germanMission,
    });
    expect(done.scorecardReferenceId).toBe(ACME.german);
    expect(done.missionReferenceId).toBe(ACME.germanMission);
    expect(done.language).toBe('de');
    // The titles are the fixture's mission and scorecard titles.
    expect(done.missionTitle).toBe('Abschluss');
    expect(done.scorecardTitle).toBe('Abschluss');
  });
  it('classifies the transcript by keyword overlap otherwise', async () => {
    const { done } = await createDone({
      transcript: 'Der Preis, der Rabatt und das Angebot passen gut.',
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(done.scorecardReferenceId).toBe(ACME.german);
    expect(done.language).toBe('de');
    const en = await createDone({
      transcript: 'We discussed the budget, the spend and the deadline.',
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    expect(en.done.scorecardReferenceId).toBe(ACME.discovery);
    expect(en.done.language).toBe('en');
  });
  it('ties (including no overlap at all) go to the first scorecard by id', async () => {
    for (const transcript of [
      'Hello there, a friendly chat about the weather.',
      'budget und preis',
    ]) {
      const { done } = await createDone({ transcript, meetingName: 'x', userId: ACME.rep.id });
      expect(done.scorecardReferenceId, transcript).toBe(ACME.discovery);
      expect(done.language).toBe('en');
    }
  });
  it('no scorecard in the organization: analysis SKIPPED, language en (D18, D20)', async () => {
    const { done } = await createDone(
      { transcript: PLAIN, meetingName: 'x', email: OPEN.rep.email },
      OPEN.key,
    );
    expect(done.analysis.state).toBe('SKIPPED');
    expect(done.language).toBe('en');
    expect(done.completed).toBe(false);
  });
});

describe('KPIs (D21)', () => {
  it('listen ratio, longest monologue and talk speed from cue timing', async () => {
    // rep 0–4 s (8 words), buyer 5–9 s, rep 20–22 s (2 words): separate runs (gap >= 2 s).
    const t = srt([
      { who: ACME.rep.email, text: 'one two three four five six seven eight', start: 0, end: 4 },
      { who: 'buyer@client.io', text: 'reply words here', start: 5, end: 9 },
      { who: ACME.rep.email, text: 'nine ten', start: 20, end: 22 },
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.kpis.state).toBe('DONE');
    expect(done.kpis.listenRatio).toBeCloseTo(0.4, 3); // 4 of 10 s are not the rep's
    expect(done.kpis.longestMonologue).toBeCloseTo(4, 3);
    expect(done.kpis.talkSpeed).toBeCloseTo(100, 0); // 10 words in 6 s
  });
  it('KPIs SKIPPED for an SRT without a rep-labeled cue (D18)', async () => {
    const t = labeled([
      [null, 'budget talk here'],
      [null, 'more talk'],
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.kpis.state).toBe('SKIPPED');
  });
  it('listenRatio has 3 decimals; a monologue run continues across gaps under 2 s, not at 2 s', async () => {
    const t = srt([
      { who: ACME.rep.email, text: 'a b c', start: 0, end: 3 },
      { who: 'buyer@client.io', text: 'x y', start: 3.5, end: 7.5 },
      { who: ACME.rep.email, text: 'one', start: 20, end: 24 },
      { who: ACME.rep.email, text: 'two', start: 25, end: 29 }, // gap 1 s: same run (>= 8 s)
      { who: ACME.rep.email, text: 'three', start: 40, end: 44 },
      { who: ACME.rep.email, text: 'four', start: 46, end: 50 }, // gap 2 s: a new run
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    const k = done.kpis;
    // rep 3 + 4 + 4 + 4 + 4 = 19 s, buyer 4 s: 4 / 23 = 0.1739…
    expect(k.listenRatio).toBe(0.174);
    expect(k.longestMonologue).toBeGreaterThanOrEqual(8);
    expect(k.longestMonologue).toBeLessThanOrEqual(9);
  });

  it('KPIs SKIPPED for plain text (no timing)', async () => {
    const { done } = await createDone({ transcript: PLAIN, meetingName: 'x', userId: ACME.rep.id });
    expect(done.kpis.state).toBe('SKIPPED');
  });
});

describe('labels and the stored transcript (R4–R6, D11–D13, D16)', () => {
  it('removes non-email labels only when the colon is followed by whitespace; keeps email labels', async () => {
    const long = 'L'.repeat(65);
    const t = srt([
      { who: ACME.rep.email, text: 'Hi, budget?', start: 0, end: 2 },
      { who: 'Client', text: 'hi', start: 3, end: 4 },
      { who: null, text: '10:30 works', start: 5, end: 6 },
      { who: null, text: 'Re:Budget', start: 7, end: 8 },
      { who: null, text: 'see https://x.io', start: 9, end: 10 },
      { who: long, text: 'long label stays', start: 11, end: 12 },
      { who: 'Note', text: 'ends\nsecond line: kept', start: 13, end: 14 },
    ]);
    const { created, done } = await createDone({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
    });
    const expected = t.replace('Client: hi', 'hi').replace('Note: ends', 'ends');
    expect(done.call.transcript).toBe(expected);
    expect(done.call.transcript).toContain(`${ACME.rep.email}: Hi, budget?`);
    expect(done.call.transcript).toContain(`${long}: long label stays`);
    expect(done.call.transcript).toContain('second line: kept');
    const rec = await exportedSession(created.id);
    expect(rec?.transcript).toBe(expected);
  });

  it('D12 edge cases: spaces before the colon, indentation, a tab after the colon, 64-character label, invalid e-mail label, second-line "labels"', async () => {
    const t = srt([
      { who: ACME.rep.email, text: 'budget', start: 0, end: 2 },
      { who: 'Client ', text: 'spaced colon', start: 3, end: 4 },
      { who: null, text: 'Re: Budget', start: 5, end: 6 },
      { who: 'L'.repeat(64), text: 'sixty four', start: 7, end: 8 },
      { who: 'a..b@acme.com', text: 'bad email label', start: 9, end: 10 },
      { who: null, text: '  Indented: text', start: 11, end: 12 },
      { who: null, text: 'Tab:\tafter', start: 13, end: 14 },
      { who: null, text: 'first\ncoach@acme.com: second line', start: 15, end: 16 },
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    const lines = (done.call.transcript as string).split('\n');
    for (const kept of [
      'spaced colon',
      'Budget',
      'sixty four',
      'bad email label',
      'text',
      'after',
    ]) {
      expect(lines).toContain(kept);
    }
    expect(lines).toContain('coach@acme.com: second line');
    // Only the first content line of a cue carries a label (D12): coach is no participant.
    expect(done.participantUserIds).toEqual([ACME.rep.id]);
  });

  it('D12: an e-mail on a second content line alone does not make the SRT speaker-labeled', async () => {
    const t = srt([{ who: null, text: 'first\ncoach@acme.com: second line', start: 0, end: 2 }]);
    const c = await m.create({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(c.status).toBe(201);
  });

  it('a label ending the line is removed too (colon at end of line)', async () => {
    const t = srt([
      { who: ACME.rep.email, text: 'Budget?', start: 0, end: 2 },
      { who: null, text: 'Client:', start: 3, end: 4 },
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.call.transcript).not.toContain('Client:');
  });

  it('R4, D6: an email label is trimmed and lowercased before matching the rep', async () => {
    const t = labeled([
      ['  Rep@ACME.com ', 'Budget?'],
      ['buyer@client.io', 'Yes.'],
    ]);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.userId).toBe(ACME.rep.id);
    expect(done.participantUserIds).toEqual([ACME.rep.id]);
  });

  it('D11: an SRT with only non-email labels is not speaker-labeled (rule 8 does not apply)', async () => {
    const t = labeled([
      ['Client', 'hello'],
      ['Agent', 'budget?'],
    ]);
    const c = await m.create({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(c.status).toBe(201);
    m.clock.advance(4001);
    expect((await m.get(c.body.id)).body.participantUserIds).toEqual([]);
  });

  it('D11: CRLF line ends, a BOM and "." millisecond separators still make a labeled SRT', async () => {
    const t =
      '\uFEFF1\r\n00:00:01.000 --> 00:00:04.000\r\ncoach@acme.com: Budget?\r\n\r\n2\r\n0:00:05,000 --> 0:00:07,000\r\nbuyer@client.io: Yes\r\n';
    // Labeled (by e-mail) but the rep never speaks: rule 8.
    const c = await m.create({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(c.status).toBe(422);
    expect(c.body.code).toBe('rep_not_in_transcript');
  });

  it('plain text and unlabeled SRT never fail rule 8 and have no participants (D14, D15)', async () => {
    const unlabeled = labeled([
      [null, 'budget talk'],
      [null, 'more talk'],
    ]);
    for (const transcript of [PLAIN, unlabeled]) {
      const { done } = await createDone({ transcript, meetingName: 'x', email: ACME.rep.email });
      expect(done.participantUserIds).toEqual([]);
    }
  });
});

describe('participants and their provisioning (R5, R7, D15, D23, D24)', () => {
  it('rep first, then internal speakers once each in first-speaking order; new internal speaker created during processing', async () => {
    const t = labeled([
      [ACME.coach.email, 'Welcome.'],
      ['buyer@client.io', 'Hi.'],
      ['Fresh.Person@Acme.com', 'Hello from a new colleague.'],
      [ACME.rep.email, 'Budget?'],
      ['COACH@ACME.COM', 'Again.'],
      ['Client', 'hi'],
    ]);
    const before = await m.totals();
    const c = await m.create({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(c.status).toBe(201);
    expect(c.body.participantUserIds).toEqual([]);
    m.clock.advance(4001);
    const g = await m.get(c.body.id);
    const after = await m.totals();
    expect(after.users).toBe(before.users + 1);
    expect(after.emails).toContain('fresh.person@acme.com');
    const ids = g.body.participantUserIds as string[];
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBe(ACME.rep.id);
    expect(ids[1]).toBe(ACME.coach.id);
    expect(ids[2]).not.toBe(ACME.rep.id);
    // The scored rep is still the rep (R7).
    expect(g.body.userId).toBe(ACME.rep.id);
    const rec = await exportedSession(c.body.id);
    expect(rec?.participantUserIds).toEqual(ids);
    expect(rec?.learnerUserId).toBe(ACME.rep.id);
  });

  it('external speakers are never attributed nor provisioned', async () => {
    const t = labeled([
      [ACME.rep.email, 'Budget?'],
      ['someone@other.org', 'Hi.'],
    ]);
    const before = await m.totals();
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.participantUserIds).toEqual([ACME.rep.id]);
    expect((await m.totals()).users).toBe(before.users);
  });

  it('a participant the identity provider refuses, or knows elsewhere, stays unattributed (never rejects)', async () => {
    const t = labeled([
      [ACME.rep.email, 'Budget?'],
      ['taken@acme.com', 'Hi.'],
      [GLOBEX.moved.email, 'Hello.'],
      ['flakyp@acme.com', 'Hey.'],
    ]);
    const before = await m.totals();
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.participantUserIds).toEqual([ACME.rep.id]);
    expect((await m.totals()).users).toBe(before.users);
  });

  it('no free seat: the unknown internal speaker stays unattributed, the upload succeeds (D24)', async () => {
    const t = labeled([
      [FULL.rep.email, 'Budget?'],
      ['newbie@full.io', 'Hi.'],
    ]);
    const before = await m.totals(FULL.key);
    const { done } = await createDone(
      { transcript: t, meetingName: 'x', email: FULL.rep.email },
      FULL.key,
    );
    expect(done.participantUserIds).toEqual([FULL.rep.id]);
    expect((await m.totals(FULL.key)).users).toBe(before.users);
  });

  it('creation disabled: unknown internal speakers stay unattributed; with no domains any email is internal', async () => {
    const t = labeled([
      [GLOBEX.boss.email, 'Budget?'],
      ['pal@anywhere.net', 'Hi.'],
    ]);
    // The rep speaks, so the upload passes; pal@anywhere.net is internal (no domains, R4) but
    // cannot be created (R5).
    const before = await m.totals(GLOBEX.key);
    const { done } = await createDone(
      { transcript: t, meetingName: 'x', email: GLOBEX.boss.email },
      GLOBEX.key,
    );
    expect(done.participantUserIds).toEqual([GLOBEX.boss.id]);
    expect((await m.totals(GLOBEX.key)).users).toBe(before.users);
  });

  it('participants are created only while seats are free (D24): 5 free seats, 7 new speakers', async () => {
    const t = labeled([
      [ACME.rep.email, 'budget'],
      ...Array.from({ length: 7 }, (_, i): [string, string] => [`p${i}@acme.com`, 'hi']),
    ]);
    const before = await m.totals();
    expect(before.users).toBe(5);
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect((await m.totals()).users).toBe(10);
    expect(done.participantUserIds).toHaveLength(6);
    expect(done.participantUserIds[0]).toBe(ACME.rep.id);
  });

  it('no configured domain: an unknown internal speaker is not created (D15)', async () => {
    const t = labeled([
      [OPEN.rep.email, 'budget'],
      ['friend@x.com', 'hi'],
    ]);
    const { done } = await createDone(
      { transcript: t, meetingName: 'x', email: OPEN.rep.email },
      OPEN.key,
    );
    expect(done.participantUserIds).toEqual([OPEN.rep.id]);
    expect((await m.totals(OPEN.key)).users).toBe(1);
  });

  it('an existing user of the organization speaking is attributed without a new user', async () => {
    const t = labeled([
      [ACME.rep.email, 'Budget?'],
      ['twin-a@acme.com', 'Hi.'],
    ]);
    const before = await m.totals();
    const { done } = await createDone({ transcript: t, meetingName: 'x', email: ACME.rep.email });
    expect(done.participantUserIds).toEqual([ACME.rep.id, ACME.twinA]);
    expect((await m.totals()).users).toBe(before.users);
  });
});

describe('timestamps are UTC with a trailing Z (description: Conventions)', () => {
  it('in sessions and in every export', async () => {
    const dates: string[] = [];
    const walk = (v: unknown, key = '') => {
      if (Array.isArray(v)) for (const x of v) walk(x, key);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
      else if (typeof v === 'string' && /(At|Date)$/.test(key)) dates.push(v);
    };
    const { created, done } = await createDone({
      transcript: PLAIN,
      meetingName: 'x',
      userId: ACME.rep.id,
    });
    walk(created);
    walk(done);
    for (const res of [
      'real-call-sessions',
      'track-assignments',
      'mission-assignments',
      'sprints',
      'users',
    ]) {
      walk((await m.call('x', 'GET', `/api/v1/data-exports/${res}`)).body);
    }
    expect(dates.length).toBeGreaterThan(20);
    for (const d of dates) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });
});

describe('session export while processing (D10)', () => {
  it('exports a PENDING session with analysis { score: 0, items: [] }, then the DONE one mapped', async () => {
    const t = labeled([
      [ACME.rep.email, 'Budget and spend, vendor?'],
      ['buyer@client.io', 'Fine.'],
    ]);
    const c = await m.create({
      transcript: t,
      meetingName: 'x',
      email: ACME.rep.email,
      missionId: ACME.discoveryMission,
    });
    const pending = await exportedSession(c.body.id);
    expect(pending).toBeDefined();
    expect(pending?.analysis).toEqual({ score: 0, items: [] });
    expect(pending?.completed).toBe(false);
    expect(pending?.learnerUserId).toBe(ACME.rep.id);
    m.clock.advance(2100);
    const mid = await exportedSession(c.body.id);
    expect(mid?.analysis).toEqual({ score: 0, items: [] });
    m.clock.advance(2000);
    const g = await m.get(c.body.id);
    const rec = await exportedSession(c.body.id);
    expect(rec?.analysis.score).toBe(g.body.analysis.score);
    expect(rec?.completed).toBe(g.body.completed);
    expect(rec?.language).toBe(g.body.language);
    expect(rec?.missionId).toBe(ACME.discoveryMission);
    expect(rec?.transcript).toBe(g.body.call.transcript);
    expect(rec?.analysis.items).toHaveLength(g.body.analysis.items.length);
    for (const item of g.body.analysis.items) {
      const e = rec?.analysis.items.find((x: { name: string }) => x.name === item.name);
      expect(e.itemScore).toBe(item.score);
      const mapped =
        item.solved === 'undetected' || item.solved === null ? 'notSolved' : item.solved;
      expect(e.solved).toBe(mapped);
      expect(e.explanation).toBe(item.explanation ?? null);
      expect(e.suggestion).toBe(item.suggestion ?? null);
    }
    expect(g.body.analysis.items.some((i: { solved: string }) => i.solved === 'undetected')).toBe(
      true,
    );
  });
});
