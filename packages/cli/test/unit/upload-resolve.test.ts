import type { RcsClient } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../src/upload/ledger.js';
import { CLOCK_SKEW_MS, resolveUnknownUploads } from '../../src/upload/resolve.js';

// D28: what one pass over the sessions export proves about uploads whose outcome is unknown.

const REP_ID = '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b';
const OTHER_ID = '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6c';
const SENT_AT = '2026-06-01T12:00:00.000Z';
const TEXT = '1\n00:00:01,000 --> 00:00:04,000\nrep@acme.com: the budget for next year\n';

interface Row {
  id: string;
  learnerUserId: string;
  createdAt: string;
  transcript: string | null;
}

/** An export read page by page: `missing` records the service counted but the pass did not get. */
function exportOf<T extends { id: string }>(rows: T[], missing = 0) {
  const stats = {
    total: rows.length + missing,
    totalAtEnd: rows.length + missing,
    seen: 0,
    missing,
  };
  return {
    stats,
    async *[Symbol.asyncIterator]() {
      for (const r of rows) {
        stats.seen++;
        yield r;
      }
    },
  };
}

function client(sessions: Row[], options: { missing?: number; users?: object[] } = {}) {
  return {
    exports: {
      realCallSessions: { all: () => exportOf(sessions, options.missing) },
      users: { all: () => exportOf((options.users ?? []) as { id: string }[]) },
    },
  } as unknown as RcsClient;
}

const record = (extra: Partial<LedgerRecord> = {}): LedgerRecord => ({
  file: 'a.srt',
  sha256: 'x',
  rep: `userId:${REP_ID}`,
  status: 'unknown',
  at: SENT_AT,
  line: 1,
  ...extra,
});

const session = (extra: Partial<Row> = {}): Row => ({
  id: '11111111-2222-4333-8444-555555555555',
  learnerUserId: REP_ID,
  createdAt: '2026-06-01T12:00:01.000Z',
  transcript: TEXT,
  ...extra,
});

const resolveOne = (c: RcsClient, rec = record(), recorded = new Set<string>()) =>
  resolveUnknownUploads(
    c,
    [{ transcript: TEXT, rep: { userId: REP_ID }, record: rec }],
    recorded,
    new AbortController().signal,
  ).then((r) => r[0]);

describe('resolveUnknownUploads (D28)', () => {
  it('the same rep, the same text, created after the intent: found, with its session id', async () => {
    expect(await resolveOne(client([session()]))).toEqual({
      kind: 'found',
      sessionId: session().id,
      createdAt: session().createdAt,
    });
  });

  it('another rep, another text, or a session from before the intent: provably absent', async () => {
    const before = new Date(Date.parse(SENT_AT) - CLOCK_SKEW_MS - 1000).toISOString();
    const c = client([
      session({ learnerUserId: OTHER_ID }),
      session({ transcript: `${TEXT} ` }),
      session({ createdAt: before }),
      session({ transcript: null }),
    ]);
    expect(await resolveOne(c)).toEqual({ kind: 'absent' });
  });

  it('a session the ledger records for another upload is never claimed twice', async () => {
    const taken = session();
    expect(await resolveOne(client([taken]), record(), new Set([taken.id]))).toEqual({
      kind: 'absent',
    });
  });

  it('a pass that missed records proves nothing: undetermined, unless it found the session', async () => {
    expect((await resolveOne(client([], { missing: 1 })))?.kind).toBe('undetermined');
    expect((await resolveOne(client([session()], { missing: 1 })))?.kind).toBe('found');
  });

  it('a time that is not a date-time that exists proves nothing: undetermined, not sent again (D29)', async () => {
    // Date.parse rolls 2026-02-30 over to March 2 (before the intent) and reads 'soon' as NaN.
    for (const createdAt of ['2026-02-30T12:00:00Z', 'soon']) {
      expect(await resolveOne(client([session({ createdAt })]))).toEqual({
        kind: 'undetermined',
        reason: `session ${session().id} (same rep, same text) has a createdAt that is not a date-time`,
      });
    }
    expect(await resolveOne(client([session()]), record({ at: 'yesterday' }))).toEqual({
      kind: 'undetermined',
      reason: "the ledger's time of the upload is not a date-time (yesterday)",
    });
    // With no session of the rep and the text, the time decides nothing: provably absent.
    expect(await resolveOne(client([]), record({ at: 'yesterday' }))).toEqual({ kind: 'absent' });
  });

  it('a rep given by email is matched through the users export (D6: any case)', async () => {
    const c = client([session()], { users: [{ id: REP_ID.toUpperCase(), email: 'Rep@Acme.com' }] });
    const [found] = await resolveUnknownUploads(
      c,
      [
        {
          transcript: TEXT,
          rep: { email: 'rep@acme.com ' },
          record: record({ rep: 'email:rep@acme.com' }),
        },
      ],
      new Set(),
      new AbortController().signal,
    );
    expect(found?.kind).toBe('found');
    const [absent] = await resolveUnknownUploads(
      c,
      [{ transcript: TEXT, rep: { email: 'nobody@acme.com' }, record: record() }],
      new Set(),
      new AbortController().signal,
    );
    expect(absent).toEqual({ kind: 'absent' });
  });

  it('a line written before D28 with a session id matches that session even if older', async () => {
    const old = session({ createdAt: '2020-01-01T00:00:00.000Z' });
    const legacy = record({ status: 'created', sessionId: old.id });
    expect((await resolveOne(client([old]), legacy, new Set([old.id])))?.kind).toBe('found');
  });

  it('the service stores the text without non-email labels (D16): still found', async () => {
    const labeled = '1\n00:00:01,000 --> 00:00:04,000\nClient: the budget for next year\n';
    const stored = '1\n00:00:01,000 --> 00:00:04,000\nthe budget for next year\n';
    const [r] = await resolveUnknownUploads(
      client([session({ transcript: stored })]),
      [{ transcript: labeled, rep: { userId: REP_ID }, record: record() }],
      new Set(),
      new AbortController().signal,
    );
    expect(r?.kind).toBe('found');
  });
});
