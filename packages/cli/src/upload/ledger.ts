import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, readFileSync, readSync, writeSync } from 'node:fs';
import { openNoFollowSync } from '@rcs/export/internal';
import { usageError } from '../errors.js';
import { newSalt, type ServiceIdentity, saltOf } from './service.js';

/**
 * The upload ledger (`.rcs-ledger.jsonl`): one JSON line per upload, appended the moment it is
 * sent, so an interrupted batch re-run uploads only what is missing. The create POST is not
 * idempotent (R10: the service has no de-duplication), so an upload whose outcome is unknown
 * (the connection dropped after sending) is recorded as `unknown` and never silently re-sent.
 *
 * D28 One upload, one service: each line names the service it went to (`service`, the base URL's
 * origin and path) and a fingerprint of the credential (`credential`, upload/service.ts), and only
 * lines of the run's own service and credential count. A `created` line stays in force whatever
 * comes after it for the same text and rep: a `--force` that fails (or whose outcome is unknown)
 * does not erase an earlier success.
 *
 * Lines written before D28 carry no service: they apply to no service on their own. A `created` or
 * unknown one is handed to the run as `legacy`, which looks for it on the service (resolve.ts)
 * rather than guessing, and records what it found as a line of this service.
 *
 * Write-ahead: before each create its line is written and fsynced with the status
 * `sending` and room for the outcome; the upload is not sent when that fails. The outcome is then
 * written over that room, in place: no new block is needed, so a disk that filled up meanwhile
 * cannot lose it, and each upload stays one line. (An outcome too long for the room, a failure
 * with a long message, is appended as a line of its own; the last line of a file and rep wins.)
 * A line still `sending` (the process died, or the disk broke after the session was created) reads
 * back as `unknown`, so a re-run never creates the session a second time.
 */

/** A ledger is read whole (about three times its size in memory): a larger file is refused. */
const MAX_LEDGER_MIB = 256;

type LedgerStatus = 'sending' | 'created' | 'unknown' | 'failed';

export interface LedgerEntry {
  file: string;
  /** sha256 of the transcript text as sent. */
  sha256: string;
  /** `email:<lowercased>` or `userId:<uuid>`: the same text for another rep is another upload. */
  rep: string;
  /** D28: the base URL's origin and path. Absent on lines written before D28. */
  service?: string;
  /** D28: `scrypt1.<salt>.<hash>` of the credential (upload/service.ts). */
  credential?: string;
  status: LedgerStatus;
  sessionId?: string;
  /** Why it failed or why the outcome is unknown; or how an unknown outcome was resolved. */
  error?: string;
  note?: string;
  at: string;
}

/** A line as read back, with where it is (for `--dry-run` and `-v`). */
export interface LedgerRecord extends LedgerEntry {
  /** 1-based line number in the ledger file. */
  line: number;
}

/**
 * What the ledger says about a text and rep on this service:
 * - `uploaded`: a `created` line of this service (the latest one);
 * - `unknown`: the last word of this service is an upload whose outcome is unknown;
 * - `legacy`: no line of this service, but a `created` or unknown line without a service;
 * - undefined: nothing, or the last attempt failed: upload it.
 */
export type LedgerMatch =
  | { kind: 'uploaded'; record: LedgerRecord }
  | { kind: 'unknown'; record: LedgerRecord }
  | { kind: 'legacy'; record: LedgerRecord };

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
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
  readonly line: number;
}

const SENDING = ',"status":"sending"';
/**
 * Bytes reserved for the outcome: a status and a session id fit with room to spare, and an error
 * message is shortened to fit (the whole message went to stderr when it happened).
 */
const OUTCOME_ROOM = 256;
const RESERVED = `${SENDING}${' '.repeat(OUTCOME_ROOM - SENDING.length)}}`;

/** What this service's lines say about one text and rep. */
interface Known {
  created?: LedgerRecord;
  last: LedgerRecord;
}

export class Ledger {
  /** This service's lines, by text and rep. */
  private readonly known = new Map<string, Known>();
  /** Lines without a service (written before D28), the last `created` or unknown one per key. */
  private readonly legacy = new Map<string, LedgerRecord>();
  /** Session ids any line of this service records: a resolution never claims one of them twice. */
  readonly recordedSessionIds = new Set<string>();
  /** Lines that could not be read (e.g. cut by a crash mid-write); reported, never fatal. */
  readonly unreadableLines: number[] = [];
  /** A crash mid-write can leave the file without its final newline: start on a fresh line. */
  private needsNewline = false;
  /** Set by refuseWrites: every write throws it. */
  private writeError: Error | undefined;
  /** Lines in the file, so that the next one's number is known. */
  private lines = 0;
  /**
   * The salt of this ledger's fingerprints: the one of its first line that has a fingerprint, else
   * a fresh one. It is the only salt trusted: a fingerprint costs a memory-hard hash per salt, so a
   * line with another salt (which rcs never writes: every line takes this one) is not checked but
   * ignored, and counted in `foreignSaltLines`. 300 crafted lines with 300 salts cost one hash,
   * not 300 (D28).
   */
  private salt: string | undefined;
  /** Lines ignored because their fingerprint has another salt than the ledger's (see `salt`). */
  readonly foreignSaltLines: number[] = [];

  /** `redact` runs over every line before it is written (no credential in the ledger). */
  constructor(
    readonly path: string,
    private readonly service: ServiceIdentity,
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  /** Loads the existing ledger; a missing file is an empty ledger. */
  load(): this {
    let text: string;
    let fd: number;
    try {
      // Never through a link planted in its place, here or in any write below.
      // Stryker disable next-line StringLiteral: 'read' is O_RDONLY, 0, as an unknown purpose is
      fd = openNoFollowSync(this.path, 'read');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this;
      throw error;
    }
    try {
      const mib = Math.ceil(fstatSync(fd).size / 2 ** 20);
      if (mib > MAX_LEDGER_MIB) {
        throw usageError(
          `the ledger ${this.path} is ${mib} MiB, more than rcs reads (${MAX_LEDGER_MIB} MiB): keep it, and pass --ledger FILE to start a new one`,
        );
      }
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    this.needsNewline = text.length > 0 && !text.endsWith('\n');
    const lines = text.split('\n');
    this.lines = text.length === 0 ? 0 : text.endsWith('\n') ? lines.length - 1 : lines.length;
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let entry: LedgerEntry;
      try {
        entry = JSON.parse(line) as LedgerEntry;
        if (typeof entry.sha256 !== 'string' || typeof entry.rep !== 'string') throw new Error();
      } catch {
        this.unreadableLines.push(i + 1);
        return;
      }
      const record: LedgerRecord =
        entry.status === 'sending'
          ? {
              ...entry,
              status: 'unknown',
              error: 'no outcome was recorded after sending',
              line: i + 1,
            }
          : { ...entry, line: i + 1 };
      this.take(record);
    });
    return this;
  }

  /** Files a line read back or just written under what it says. */
  private take(record: LedgerRecord): void {
    const k = key(record.sha256, record.rep);
    if (record.service === undefined) {
      if (record.status !== 'failed') this.legacy.set(k, record);
      return;
    }
    const salt = saltOf(record.credential);
    if (salt === undefined) return; // No fingerprint of ours: it names no credential (D28).
    this.salt ??= salt;
    if (salt !== this.salt) {
      this.foreignSaltLines.push(record.line);
      return;
    }
    if (
      record.service !== this.service.url ||
      record.credential !== this.service.fingerprint(salt)
    ) {
      return; // Another service, or another credential (another organization): D28.
    }
    if (record.sessionId !== undefined) this.recordedSessionIds.add(record.sessionId);
    const known = this.known.get(k);
    const created = record.status === 'created' ? record : known?.created;
    this.known.set(k, created ? { created, last: record } : { last: record });
  }

  /** The fields that tie a new line to this run's service and credential (D28). */
  private serviceFields(): Pick<LedgerEntry, 'service' | 'credential'> {
    this.salt ??= newSalt();
    return { service: this.service.url, credential: this.service.fingerprint(this.salt) };
  }

  /**
   * Fails now, before any upload, when the ledger cannot be written: a session created but not
   * recorded would be uploaded again by the next run.
   */
  assertWritable(): this {
    closeSync(openNoFollowSync(this.path, 'append'));
    return this;
  }

  /**
   * From now on every write fails with `error`: the run could not take the ledger's lock (a full
   * disk), so it must write nothing, and so sends nothing (write-ahead).
   */
  refuseWrites(error: Error): this {
    this.writeError = error;
    return this;
  }

  /** What the ledger says about this text and rep on this run's service (see LedgerMatch). */
  find(sha256: string, rep: string): LedgerMatch | undefined {
    const k = key(sha256, rep);
    const known = this.known.get(k);
    // A success stays in force: a later failed or unknown `--force` does not erase it (D28).
    if (known?.created) return { kind: 'uploaded', record: known.created };
    if (known?.last.status === 'unknown' || known?.last.status === 'sending') {
      return { kind: 'unknown', record: known.last };
    }
    if (known) return undefined;
    const legacy = this.legacy.get(k);
    return legacy ? { kind: 'legacy', record: legacy } : undefined;
  }

  /**
   * Writes an upload's line before it is sent (status `sending`, room for the outcome) and fsyncs
   * it. Throws when it cannot be written (a full disk): then the upload must not be sent.
   */
  intend(subject: LedgerSubject): LedgerIntent {
    const at = new Date().toISOString();
    const head = this.redact(JSON.stringify({ ...subject, ...this.serviceFields(), at })).slice(
      0,
      -1,
    );
    const { offset, line } = this.append(`${head}${RESERVED}`);
    this.take({ ...subject, ...this.serviceFields(), status: 'sending', at, line });
    return { subject, at, offset: offset + Buffer.byteLength(head), line };
  }

  /**
   * Writes the outcome of a sent upload over its intent's room (fsynced), or, when it does not
   * fit or the room is not where it was (another writer), as a line of its own.
   */
  settle(intent: LedgerIntent, outcome: LedgerOutcome): LedgerRecord {
    const full: LedgerEntry = {
      ...intent.subject,
      ...this.serviceFields(),
      at: intent.at,
      ...outcome,
    };
    const tail = this.tailOf(outcome);
    if (Buffer.byteLength(tail) < OUTCOME_ROOM && this.overwrite(intent.offset, tail)) {
      const record = { ...full, line: intent.line };
      this.take(record);
      return record;
    }
    return this.record(full);
  }

  /** `,"status":…` of an outcome, its error shortened (by code points) to fit the room. */
  private tailOf(outcome: LedgerOutcome): string {
    const tail = (o: LedgerOutcome) => `,${this.redact(JSON.stringify(o)).slice(1, -1)}`;
    let text = tail(outcome);
    // Stryker disable next-line StringLiteral: with no error, a cut only adds one: never fits
    const chars = Array.from(outcome.error ?? '');
    for (let keep = chars.length; Buffer.byteLength(text) >= OUTCOME_ROOM && keep > 0; ) {
      // Whole code points from the end, for the bytes over, the last byte of the room and the …'s 3.
      let over = Buffer.byteLength(text) - OUTCOME_ROOM + 4;
      while (over > 0 && keep > 0) over -= Buffer.byteLength(chars[--keep]!);
      text = tail({ ...outcome, error: `${chars.slice(0, keep).join('')}…` });
    }
    return text;
  }

  /**
   * Appends a whole entry of this run's service as a line of its own and fsyncs it. Throws when it
   * cannot.
   */
  record(
    entry: Omit<LedgerEntry, 'at' | 'service' | 'credential'> & { at?: string },
  ): LedgerRecord {
    const full: LedgerEntry = {
      ...entry,
      ...this.serviceFields(),
      at: entry.at ?? new Date().toISOString(),
    };
    const { line } = this.append(this.redact(JSON.stringify(full)));
    const record = { ...full, line };
    this.take(record);
    return record;
  }

  /** Appends `line` and a newline, fsynced; returns the offset where `line` starts, and its number. */
  private append(line: string): { offset: number; line: number } {
    if (this.writeError) throw this.writeError;
    const prefix = this.needsNewline ? '\n' : '';
    const fd = openNoFollowSync(this.path, 'append');
    try {
      const offset = fstatSync(fd).size + prefix.length;
      // A nearly full disk can take part of a line: write the rest until it fails (ENOSPC).
      const bytes = Buffer.from(`${prefix}${line}\n`);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
      this.needsNewline = false;
      this.lines += 1;
      return { offset, line: this.lines };
    } finally {
      closeSync(fd);
    }
  }

  /** Writes `tail` over the reserved room at `offset` if the room is still there; fsynced. */
  private overwrite(offset: number, tail: string): boolean {
    const fd = openNoFollowSync(this.path, 'update');
    try {
      const room = Buffer.alloc(Buffer.byteLength(RESERVED));
      if (readSync(fd, room, 0, room.length, offset) !== room.length) return false;
      if (room.toString('utf8') !== RESERVED) return false;
      const padded = `${tail}${' '.repeat(OUTCOME_ROOM - Buffer.byteLength(tail))}}`;
      const bytes = Buffer.from(padded);
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
