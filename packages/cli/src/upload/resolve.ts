import type { RcsClient } from '@rcs/client';
import { instantOf } from '@rcs/client/internal';
import { normalizeEmail, storedTranscript } from '@rcs/transcript';
import { contentHash, type LedgerRecord } from './ledger.js';

/**
 * D28: an upload whose outcome is unknown (its `sending` line has no answer: the process died, or
 * the answer was lost; R10, the create POST is not idempotent) is looked for on the service,
 * never guessed. One pass over the sessions export resolves every unknown of a batch: a session
 * of the same rep (`learnerUserId`) with the same transcript, created no earlier than the intent
 * (less CLOCK_SKEW_MS), that no other ledger line records. A rep given by email needs its user id:
 * one pass over the users export first. The API has no filter on `createdAt` (only `page` and
 * `limit`) and its order is not guaranteed (D9), so each pass reads the whole export.
 *
 * Found: the upload happened, with that session id. Provably absent (the pass saw every record the
 * service counted): it did not, and can be sent. Anything short of a whole pass proves nothing:
 * the file stays unknown and is not sent.
 */

/** The service's clock may run behind ours: a session this much older than the intent still counts. */
export const CLOCK_SKEW_MS = 10 * 60 * 1000;

export interface UnknownUpload {
  /** The text as this run would send it. */
  transcript: string;
  rep: { email?: string | undefined; userId?: string | undefined };
  /** The ledger line whose outcome is unknown (or a line written before D28). */
  record: LedgerRecord;
}

export type Resolution =
  | { kind: 'found'; sessionId: string; createdAt: string }
  | { kind: 'absent' }
  | { kind: 'undetermined'; reason: string };

interface Wanted {
  upload: UnknownUpload;
  userId: string | undefined;
  /** undefined: the ledger's time is not a date-time that exists (D29's check). */
  since: number | undefined;
  matches: { id: string; createdAt: string; at: number }[];
  /** Why a session of the rep with the text cannot be placed before or after the intent. */
  unplaced?: string;
}

function lower(v: unknown): string | undefined {
  return typeof v === 'string' ? v.toLowerCase() : undefined;
}

/**
 * The user id of each email rep (D6: compared case-insensitively), from one pass over the users
 * export; `complete` says whether that pass saw every user the service counted.
 */
async function userIdsByEmail(
  client: RcsClient,
  emails: Set<string>,
  signal: AbortSignal,
): Promise<{ ids: Map<string, string>; complete: boolean }> {
  const ids = new Map<string, string>();
  const users = client.exports.users.all({ signal });
  for await (const user of users) {
    const email = typeof user.email === 'string' ? normalizeEmail(user.email) : undefined;
    if (email !== undefined && emails.has(email)) ids.set(email, user.id.toLowerCase());
  }
  return { ids, complete: users.stats.missing === 0 && users.stats.total !== undefined };
}

/**
 * Looks every unknown upload up on the service (see above). `recordedSessionIds` are sessions the
 * ledger already gives to another upload: never claimed twice.
 */
export async function resolveUnknownUploads(
  client: RcsClient,
  uploads: readonly UnknownUpload[],
  recordedSessionIds: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<Resolution[]> {
  const emails = new Set(
    uploads.flatMap((u) => (u.rep.email !== undefined ? [normalizeEmail(u.rep.email)] : [])),
  );
  const users =
    emails.size > 0
      ? await userIdsByEmail(client, emails, signal)
      : { ids: new Map<string, string>(), complete: true };
  const wanted: Wanted[] = uploads.map((upload) => ({
    upload,
    userId:
      upload.rep.email !== undefined
        ? users.ids.get(normalizeEmail(upload.rep.email))
        : lower(upload.rep.userId),
    since: instantOf(upload.record.at),
    matches: [],
  }));
  // The service stores the text with non-email labels taken out (D16); a service that stores it
  // as sent matches too.
  const byHash = new Map<string, Wanted[]>();
  for (const w of wanted) {
    const hashes = new Set([
      contentHash(w.upload.transcript),
      contentHash(storedTranscript(w.upload.transcript)),
    ]);
    for (const h of hashes) byHash.set(h, [...(byHash.get(h) ?? []), w]);
  }
  const sessions = client.exports.realCallSessions.all({ signal });
  for await (const session of sessions) {
    if (typeof session.transcript !== 'string') continue;
    const candidates = byHash.get(contentHash(session.transcript));
    if (!candidates) continue;
    const at = instantOf(session.createdAt);
    for (const w of candidates) {
      if (w.userId === undefined || lower(session.learnerUserId) !== w.userId) continue;
      const match = { id: session.id, createdAt: session.createdAt, at: at ?? Number.NaN };
      if (session.id === w.upload.record.sessionId) w.matches.push(match);
      else if (recordedSessionIds.has(session.id)) continue;
      // A time that does not exist (Date.parse would roll it over, or give NaN) proves nothing.
      else if (at === undefined) {
        w.unplaced ??= `session ${session.id} (same rep, same text) has a createdAt that is not a date-time`;
      } else if (w.since === undefined) {
        w.unplaced ??= `the ledger's time of the upload is not a date-time (${w.upload.record.at})`;
      } else if (at >= w.since - CLOCK_SKEW_MS) w.matches.push(match);
    }
  }
  const complete = sessions.stats.missing === 0 && sessions.stats.total !== undefined;
  return wanted.map((w): Resolution => {
    if (w.matches.length > 0) {
      // The session the ledger line names, else the first created after the intent.
      const own = w.matches.find((m) => m.id === w.upload.record.sessionId);
      const first = [...w.matches].sort((a, b) => a.at - b.at)[0];
      const pick = own ?? first;
      if (pick) return { kind: 'found', sessionId: pick.id, createdAt: pick.createdAt };
    }
    if (w.unplaced) return { kind: 'undetermined', reason: w.unplaced };
    if (!complete) {
      return {
        kind: 'undetermined',
        reason: `the sessions export was incomplete (${sessions.stats.seen} of ${sessions.stats.totalAtEnd ?? '?'} records read)`,
      };
    }
    if (w.userId === undefined && w.upload.rep.email !== undefined && !users.complete) {
      return { kind: 'undetermined', reason: 'the users export was incomplete' };
    }
    return { kind: 'absent' };
  });
}
