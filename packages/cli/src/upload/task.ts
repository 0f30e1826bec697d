import { setTimeout as sleep } from 'node:timers/promises';
import {
  emptyRequestStats,
  type RcsClient,
  type RealCallSession,
  type RequestStats,
} from '@rcs/client';
import type { CliContext } from '../context.js';
import { describeError } from '../describe-error.js';
import { CliError, InterruptedError, interruptedExitCode } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Progress } from '../output/progress.js';
import { safeLine } from '../output/sanitize.js';
import { inSpan } from '../tracing/request.js';
import type { Decision } from './decision.js';
import { contentHash, type Ledger, type LedgerIntent, type LedgerRecord } from './ledger.js';
import { errorInfo, type Item, type Outcome, type UploadResult } from './outcome.js';
import { reportOutcome, warningsOf } from './report.js';

/**
 * The create answer is PENDING (R10, D18): reading the session again at once can only say PENDING
 * again, so --wait starts polling after this pause (one request per session fewer, bench/cli).
 */
const FIRST_POLL_DELAY_MS = 1000;

const LOCK_LOST = 'this run no longer holds the ledger lock: another run took it over';
const notSent = () => new CliError(EXIT.failure, `not sent: ${LOCK_LOST}`);

function errnoOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(error);
}

/** The ledger cannot take the `sending` line: the upload is not sent. */
function ledgerUnwritable(file: string, error: unknown): Outcome {
  return {
    result: {
      file,
      status: 'failed',
      error: {
        code: 'ledger_unwritable',
        message: `${file}: not uploaded: the ledger cannot be written (${errnoOf(error)}), so a re-run could not tell that it was; free space or pass --ledger FILE elsewhere`,
      },
    },
    exitCode: EXIT.failure,
  };
}

/** `-v` and `--dry-run`: the ledger line that decided a skip (D28). */
export function matchedRecord(record: LedgerRecord): string {
  return `ledger line ${record.line} matched: ${safeLine(record.file)} uploaded to ${safeLine(record.service ?? '(no service recorded)')} as session ${safeLine(record.sessionId ?? '?')} on ${safeLine(record.at)}`;
}

/** An upload whose outcome stays unknown (D28): reported failed, not sent. */
function unresolved(
  file: string,
  decision: { record: LedgerRecord; reason?: string },
): UploadResult {
  const { record } = decision;
  const what =
    record.service === undefined
      ? `ledger line ${record.line}, written by an earlier rcs, does not say which service it went to`
      : `an earlier upload's outcome is unknown (sent ${record.at}, ledger line ${record.line})`;
  return {
    file,
    status: 'failed',
    error: {
      code: 'unknown_outcome',
      message: `${file}: ${what}: ${decision.reason ?? 'not looked up'}; it was not sent again: run again (without --no-resolve) to look for it on the service, or check \`rcs export real-call-sessions\` and use --force to upload anyway`,
    },
  };
}

export interface TaskConfig {
  repKey: string;
  repEmail: string | undefined;
  wait: boolean;
  timeoutMs: number;
  /** Fencing: throws once the ledger's lock is no longer this run's (none when no lock is held). */
  assertHeld?: (() => Promise<void>) | undefined;
}

/** One file's upload: ledger check, create, ledger record, optional wait, output. */
export class UploadTask {
  /** Set by the first 401: no further upload starts. */
  authRefused = false;
  /** Set once the ledger's lock is no longer this run's (why): no further upload starts. */
  lockLost: Error | undefined;

  constructor(
    private readonly ctx: CliContext,
    private readonly client: RcsClient,
    private readonly ledger: Ledger,
    private readonly progress: Progress,
    private readonly stop: AbortController,
    private readonly config: TaskConfig,
  ) {}

  /**
   * Fencing (D28 across processes): whether the ledger's lock was taken from this run, which was
   * then judged gone (paused past its lease: SIGSTOP, a frozen VM). The run that took it over
   * uploads what this one has not, and looks up what this one left unrecorded.
   */
  private async lostLock(): Promise<boolean> {
    await this.config.assertHeld?.().catch((error: Error) => {
      this.lockLost ??= error;
    });
    return this.lockLost !== undefined;
  }

  /** Stopped from outside: Ctrl-C / SIGTERM, or a reader of stdout that went away. */
  private halted(): boolean {
    return this.ctx.signal.aborted || this.ctx.outputClosed?.aborted === true;
  }

  async one(item: Item, decision: Decision): Promise<Outcome> {
    // This file's requests, counted for its `--json` line (the run summary).
    const stats = emptyRequestStats();
    // One span per file: its requests (the create, the wait's reads) are children;
    // it ends with the session id and its final state. The file is the user's own argument.
    const traced = await inSpan(
      this.ctx.tracer,
      'rcs.upload.file',
      { 'rcs.upload.file': item.loaded.file },
      async (span) => {
        const outcome = await this.upload(item, decision, stats);
        const { result } = outcome;
        span?.setAttributes({
          'rcs.upload.status': result.status,
          'rcs.session.id': result.sessionId,
          'rcs.session.state': result.session?.state,
        });
        if (outcome.exitCode !== 0) span?.fail(result.error?.code ?? `exit ${outcome.exitCode}`);
        return outcome;
      },
    );
    const warnings = warningsOf(item.loaded.warnings);
    const outcome = { ...traced, result: { ...traced.result, summary: stats, warnings } };
    reportOutcome(this.ctx, this.progress, this.config.repEmail, outcome);
    return outcome;
  }

  private async upload(
    { loaded, body }: Item,
    decision: Decision,
    stats: RequestStats,
  ): Promise<Outcome> {
    const file = loaded.file;
    if (decision.action === 'duplicate') {
      return { result: { file, status: 'skipped', duplicateOf: decision.of }, exitCode: 0 };
    }
    if (decision.action === 'skip') {
      const { record } = decision;
      if (this.ctx.verbose)
        this.ctx.stderr.write(`[rcs] ${safeLine(file)}: ${matchedRecord(record)}\n`);
      const sessionId = record.sessionId ?? '';
      const result: UploadResult = {
        file,
        status: 'skipped',
        sessionId,
        ...(decision.found ? { foundOnService: true } : {}),
        ...(decision.otherRun ? { otherRun: decision.otherRun } : {}),
      };
      return this.config.wait ? this.waitFor(result, sessionId, stats) : { result, exitCode: 0 };
    }
    if (decision.action === 'unknown' || decision.action === 'lookup') {
      // Never silently re-sent: the first attempt may have created a session (R10, no dedupe).
      return { result: unresolved(file, decision), exitCode: EXIT.failure };
    }
    // Fencing: nothing is written nor sent once the lock is another run's.
    if (await this.lostLock()) return this.failed(file, undefined, notSent());
    const sha256 = contentHash(body.transcript);
    this.progress.set(file, `${safeLine(file)}: uploading`);
    // A request can reach the service only if the batch was still running when it was made.
    const sent = !this.stop.signal.aborted;
    let intent: LedgerIntent | undefined;
    if (sent) {
      // Write-ahead: no create is sent unless the ledger can say it was.
      try {
        intent = this.ledger.intend({ file, sha256, rep: this.config.repKey });
      } catch (error) {
        return ledgerUnwritable(file, error);
      }
    }
    // Checked last before the create, after its `sending` line: a taker that read the ledger
    // meanwhile finds that line and looks the upload up rather than sending it too.
    if (await this.lostLock()) return this.failed(file, intent, notSent());
    let session: RealCallSession;
    try {
      session = await this.client.sessions.create(body, { signal: this.stop.signal, stats });
    } catch (error) {
      return this.failed(file, intent, error);
    }
    let unrecorded = false;
    try {
      if (await this.lostLock()) throw this.lockLost;
      // A create is only sent after its intent was written (sent), so there is one to settle.
      if (intent) this.ledger.settle(intent, { status: 'created', sessionId: session.id });
    } catch (error) {
      unrecorded = true;
      // The session exists; the ledger's `sending` line keeps a re-run from sending it again,
      // and the id is on stderr so that nothing is lost.
      this.ctx.error(
        `${safeLine(file)}: uploaded as session ${safeLine(session.id)}, but the ledger could not record it (${error === this.lockLost ? LOCK_LOST : errnoOf(error)}); a re-run will not upload it again`,
      );
    }
    const result: UploadResult = { file, status: 'created', sessionId: session.id, session };
    const outcome =
      this.config.wait && session.state !== 'DONE'
        ? await this.waitFor(result, session.id, stats, FIRST_POLL_DELAY_MS)
        : { result, exitCode: 0 };
    return unrecorded
      ? { ...outcome, exitCode: outcome.exitCode || EXIT.failure, unrecorded: true }
      : outcome;
  }

  private failed(file: string, intent: LedgerIntent | undefined, error: unknown): Outcome {
    const sent = intent !== undefined;
    // Cut by the stop (Ctrl-C, SIGTERM, stdout gone): the request rejects with the abort reason.
    // Anything else (an answer, a refused connection) is a failure of its own, even if it
    // arrives while the batch is stopping.
    const cut =
      this.stop.signal.aborted &&
      (error === this.stop.signal.reason ||
        error instanceof InterruptedError ||
        (error as Error | undefined)?.name === 'AbortError');
    // Unknown only when the request may have reached the service: the client says so (a
    // connection lost or timed out after sending), or it was cut in flight (the client cannot
    // say whether it had left yet, so the safe answer is "maybe").
    const unknown =
      (error as { mayHaveBeenCreated?: unknown })?.mayHaveBeenCreated === true || (cut && sent);
    const described = describeError(error);
    const message = cut
      ? unknown
        ? 'interrupted while the upload was in flight; its outcome is unknown'
        : 'interrupted before the upload was sent'
      : described.message;
    // A 401 ends the batch early (every other upload would fail the same way); uploads already
    // in flight finish on their own, so none is cut mid-request. Any other failure stops nothing.
    if (!cut && described.exitCode === EXIT.auth) this.authRefused = true;
    // Every sent create gets its outcome after its `sending` line; a 401 or a stop before the
    // request left created nothing, so `failed` lets a re-run send it.
    if (intent) {
      try {
        this.ledger.settle(intent, { status: unknown ? 'unknown' : 'failed', error: message });
      } catch {
        // Its `sending` line stays the last word: read back as unknown, never re-sent blindly.
      }
    }
    return {
      result: {
        file,
        status: 'failed',
        error: errorInfo(error, message),
      },
      exitCode: cut ? interruptedExitCode(this.stop.signal.reason) : described.exitCode,
      interrupted: cut,
    };
  }

  private async waitFor(
    result: UploadResult,
    sessionId: string,
    stats: RequestStats,
    delayMs = 0,
  ): Promise<Outcome> {
    const label = `${safeLine(result.file)} (${safeLine(sessionId)})`;
    this.progress.set(result.file, `${label}: waiting for the score`);
    try {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.stop.signal });
      const session = await this.client.sessions.waitUntilDone(sessionId, {
        timeoutMs: this.config.timeoutMs,
        signal: this.stop.signal,
        stats,
        onProgress: (s) => this.progress.set(result.file, `${label}: ${safeLine(s.state)}`),
      });
      return { result: { ...result, session }, exitCode: 0 };
    } catch (error) {
      const described = describeError(error);
      if (this.halted()) {
        return {
          result,
          exitCode: interruptedExitCode(this.stop.signal.reason),
          interrupted: true,
        };
      }
      if (described.exitCode === EXIT.waitTimeout) {
        return { result, exitCode: EXIT.waitTimeout, waitTimedOut: true };
      }
      // The upload itself succeeded (and is in the ledger); only reading it back failed.
      return {
        result: { ...result, error: errorInfo(error, described.message) },
        exitCode: described.exitCode,
      };
    }
  }
}
