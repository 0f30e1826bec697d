import { createHash } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from 'node:fs';

/**
 * The upload ledger (`.rcs-ledger.jsonl`): one JSON line per finished upload, appended the moment
 * it finishes, so an interrupted batch re-run uploads only what is missing. The create POST is not
 * idempotent (R10: the service has no de-duplication), so an upload whose outcome is unknown
 * (the connection dropped after sending) is recorded as `unknown` and never silently re-sent.
 *
 * Write-ahead (issue 11): before each create its line is written and fsynced with the status
 * `sending` and room for the outcome; the upload is not sent when that fails. The outcome is then
 * written over that room, in place: no new block is needed, so a disk that filled up meanwhile
 * cannot lose it, and each upload stays one line. (An outcome too long for the room, a failure
 * with a long message, is appended as a line of its own; the last line of a file and rep wins.)
 * A line still `sending` (the process died, or the disk broke after the session was created) reads
 * back as `unknown`, so a re-run never creates the session a second time.
 */

type LedgerStatus = 'sending' | 'created' | 'unknown' | 'failed';

export interface LedgerEntry {
  file: string;
  /** sha256 of the transcript text as sent. */
  sha256: string;
  /** `email:<lowercased>` or `userId:<uuid>`: the same text for another rep is another upload. */
  rep: string;
  status: LedgerStatus;
  sessionId?: string;
  /** Why it failed or why the outcome is unknown. */
  error?: string;
  at: string;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function repKey(rep: { email?: string | undefined; userId?: string | undefined }): string {
  // D6: emails compare case-insensitively after trimming.
  return rep.email !== undefined
    ? `email:${rep.email.trim().toLowerCase()}`
    : `userId:${rep.userId}`;
}

const key = (sha256: string, rep: string) => `${sha256} ${rep}`;

/** What an upload is, before it is sent: the ledger line's fixed fields. */
export type LedgerSubject = Pick<LedgerEntry, 'file' | 'sha256' | 'rep'>;
export type LedgerOutcome = Pick<LedgerEntry, 'status' | 'sessionId' | 'error'>;

/** A written `sending` line: where its outcome goes. */
export interface LedgerIntent {
  readonly subject: LedgerSubject;
  readonly at: string;
  /** Byte offset of the reserved room (it starts with `,"status":"sending"`). */
  readonly offset: number;
}

const SENDING = ',"status":"sending"';
/**
 * Bytes reserved for the outcome: a status and a session id fit with room to spare, and an error
 * message is shortened to fit (the whole message went to stderr when it happened).
 */
const OUTCOME_ROOM = 256;
const RESERVED = `${SENDING}${' '.repeat(OUTCOME_ROOM - SENDING.length)}}`;

export class Ledger {
  private readonly latest = new Map<string, LedgerEntry>();
  /** Lines that could not be read (e.g. cut by a crash mid-write); reported, never fatal. */
  readonly unreadableLines: number[] = [];
  /** A crash mid-write can leave the file without its final newline: start on a fresh line. */
  private needsNewline = false;

  /** `redact` runs over every line before it is written (no credential in the ledger). */
  constructor(
    readonly path: string,
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  /** Loads the existing ledger; a missing file is an empty ledger. */
  load(): this {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this;
      throw error;
    }
    this.needsNewline = text.length > 0 && !text.endsWith('\n');
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        const entry = JSON.parse(line) as LedgerEntry;
        if (typeof entry.sha256 !== 'string' || typeof entry.rep !== 'string') throw new Error();
        this.latest.set(
          key(entry.sha256, entry.rep),
          entry.status === 'sending'
            ? { ...entry, status: 'unknown', error: 'no outcome was recorded after sending' }
            : entry,
        );
      } catch {
        this.unreadableLines.push(i + 1);
      }
    });
    return this;
  }

  /**
   * Fails now, before any upload, when the ledger cannot be written: a session created but not
   * recorded would be uploaded again by the next run.
   */
  assertWritable(): this {
    appendFileSync(this.path, '', { mode: 0o600 });
    return this;
  }

  /** The last recorded outcome for this text and rep, if any. */
  find(sha256: string, rep: string): LedgerEntry | undefined {
    return this.latest.get(key(sha256, rep));
  }

  /**
   * Writes an upload's line before it is sent (status `sending`, room for the outcome) and fsyncs
   * it. Throws when it cannot be written (a full disk): then the upload must not be sent.
   */
  intend(subject: LedgerSubject): LedgerIntent {
    const at = new Date().toISOString();
    const head = this.redact(JSON.stringify({ ...subject, at })).slice(0, -1);
    const offset = this.append(`${head}${RESERVED}`) + Buffer.byteLength(head, 'utf8');
    this.latest.set(key(subject.sha256, subject.rep), { ...subject, status: 'sending', at });
    return { subject, at, offset };
  }

  /**
   * Writes the outcome of a sent upload over its intent's room (fsynced), or, when it does not
   * fit or the room is not where it was (another writer), as a line of its own.
   */
  settle(intent: LedgerIntent, outcome: LedgerOutcome): LedgerEntry {
    const full: LedgerEntry = { ...intent.subject, at: intent.at, ...outcome };
    const tail = this.tailOf(outcome);
    if (Buffer.byteLength(tail, 'utf8') < OUTCOME_ROOM && this.overwrite(intent.offset, tail)) {
      this.latest.set(key(full.sha256, full.rep), full);
      return full;
    }
    return this.record(full);
  }

  /** `,"status":…` of an outcome, its error shortened (by code points) to fit the room. */
  private tailOf(outcome: LedgerOutcome): string {
    const tail = (o: LedgerOutcome) => `,${this.redact(JSON.stringify(o)).slice(1, -1)}`;
    let text = tail(outcome);
    const chars = Array.from(outcome.error ?? '');
    for (let keep = chars.length; Buffer.byteLength(text) >= OUTCOME_ROOM && keep > 0; ) {
      keep = Math.max(0, keep - Math.max(8, Buffer.byteLength(text) - OUTCOME_ROOM + 8));
      text = tail({ ...outcome, error: `${chars.slice(0, keep).join('')}…` });
    }
    return text;
  }

  /** Appends a whole entry as a line of its own and fsyncs it. Throws when it cannot. */
  record(entry: Omit<LedgerEntry, 'at'> & { at?: string }): LedgerEntry {
    const full: LedgerEntry = { ...entry, at: entry.at ?? new Date().toISOString() };
    this.append(this.redact(JSON.stringify(full)));
    this.latest.set(key(full.sha256, full.rep), full);
    return full;
  }

  /** Appends `line` and a newline, fsynced; returns the offset where `line` starts. */
  private append(line: string): number {
    const prefix = this.needsNewline ? '\n' : '';
    const fd = openSync(this.path, 'a', 0o600);
    try {
      const offset = fstatSync(fd).size + prefix.length;
      // A nearly full disk can take part of a line: write the rest until it fails (ENOSPC).
      const bytes = Buffer.from(`${prefix}${line}\n`, 'utf8');
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
      this.needsNewline = false;
      return offset;
    } finally {
      closeSync(fd);
    }
  }

  /** Writes `tail` over the reserved room at `offset` if the room is still there; fsynced. */
  private overwrite(offset: number, tail: string): boolean {
    const fd = openSync(this.path, 'r+');
    try {
      const room = Buffer.alloc(Buffer.byteLength(RESERVED));
      if (readSync(fd, room, 0, room.length, offset) !== room.length) return false;
      if (room.toString('utf8') !== RESERVED) return false;
      const padded = `${tail}${' '.repeat(OUTCOME_ROOM - Buffer.byteLength(tail, 'utf8'))}}`;
      const bytes = Buffer.from(padded, 'utf8');
      for (let at = 0; at < bytes.length; ) {
        at += writeSync(fd, bytes, at, bytes.length - at, offset + at);
      }
      fsyncSync(fd);
      return true;
    } finally {
      closeSync(fd);
    }
  }
}
