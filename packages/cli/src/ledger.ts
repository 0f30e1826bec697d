import { createHash } from 'node:crypto';
import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';

/**
 * The upload ledger (`.rcs-ledger.jsonl`): one JSON line per finished upload, appended the moment
 * it finishes, so an interrupted batch re-run uploads only what is missing. The create POST is not
 * idempotent (R10: the service has no de-duplication), so an upload whose outcome is unknown
 * (the connection dropped after sending) is recorded as `unknown` and never silently re-sent.
 *
 * Write-ahead (issue 11): before each create a `sending` line is written and fsynced; the upload
 * is not sent when that fails. A `sending` line that no outcome follows (the process died, or the
 * disk filled up after the session was created) reads back as `unknown`, so a re-run never
 * creates the session a second time.
 */

export type LedgerStatus = 'sending' | 'created' | 'unknown' | 'failed';

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
   * Appends synchronously and fsyncs: the line is on disk before the upload is sent (`sending`)
   * or reported. Throws when it cannot be written (a full disk); nothing is remembered then.
   */
  record(entry: Omit<LedgerEntry, 'at'>): LedgerEntry {
    const full: LedgerEntry = { ...entry, at: new Date().toISOString() };
    const prefix = this.needsNewline ? '\n' : '';
    const fd = openSync(this.path, 'a', 0o600);
    try {
      // A nearly full disk can take part of a line: write the rest until it fails (ENOSPC).
      const bytes = Buffer.from(`${prefix}${this.redact(JSON.stringify(full))}\n`, 'utf8');
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.needsNewline = false;
    this.latest.set(key(full.sha256, full.rep), full);
    return full;
  }
}
