import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RcsClient, RealCallSession } from '@rcs/client';
import type { CliContext } from '../context.js';
import { CliError, describeError, InterruptedError, interruptedExitCode } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { contentHash, Ledger, repKey } from '../ledger.js';
import { createProgress, type Progress } from '../output/progress.js';
import { safeLine } from '../output/sanitize.js';
import { renderSession } from '../output/session-view.js';
import { expandFiles, parseSpeakerMap } from '../upload/files.js';
import {
  formatProblem,
  type LoadedTranscript,
  loadTranscript,
  type Problem,
  prevalidate,
  requestBody,
} from '../upload/prepare.js';
import {
  DEFAULT_WAIT_SECONDS,
  hex24,
  parsePositiveInt,
  parseSeconds,
  repDesignator,
} from './validate-flags.js';

export interface UploadOptions {
  files: string[];
  email?: string;
  userId?: string;
  meetingName?: string;
  missionId?: string;
  scorecardId?: string;
  speaker?: string[];
  wait?: boolean;
  /** Seconds, as typed. */
  timeout?: string;
  concurrency?: string;
  ledger?: string;
  force?: boolean;
  /** false with --no-validate. */
  validate?: boolean;
}

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_LEDGER = '.rcs-ledger.jsonl';
/**
 * The create answer is PENDING (R10, D18): reading the session again at once can only say PENDING
 * again, so --wait starts polling after this pause (one request per session fewer, bench/cli).
 */
export const FIRST_POLL_DELAY_MS = 1000;

/** One line of `--json` output (cli.md). */
export interface UploadResult {
  file: string;
  status: 'created' | 'skipped' | 'failed';
  sessionId?: string;
  session?: RealCallSession;
  error?: { code?: string; status?: number; message: string; problems?: Problem[] };
  /** For `skipped`: the file of this batch with the same text, which was uploaded instead. */
  duplicateOf?: string;
}

interface Outcome {
  result: UploadResult;
  exitCode: number;
  waitTimedOut?: boolean;
  interrupted?: boolean;
  /** Created, but the ledger could not record it (a full disk): exit non-zero (issue 11). */
  unrecorded?: boolean;
}

interface Item {
  loaded: LoadedTranscript;
  body: ReturnType<typeof requestBody>;
  /** The earlier file of this batch with the same text: sending both would score one call twice. */
  duplicateOf?: string;
}

function errorInfo(error: unknown, message: string): UploadResult['error'] {
  const e = error as { code?: unknown; status?: unknown };
  const info: NonNullable<UploadResult['error']> = { message };
  if (typeof e?.code === 'string') info.code = e.code;
  if (typeof e?.status === 'number') info.status = e.status;
  return info;
}

export async function run(opts: UploadOptions, ctx: CliContext): Promise<number> {
  // Every flag is checked before anything is read or sent (exit 2).
  const rep = repDesignator(opts, true);
  const missionId = hex24('--mission-id', opts.missionId);
  const scorecardId = hex24('--scorecard-id', opts.scorecardId);
  const concurrency =
    parsePositiveInt('--concurrency', opts.concurrency, 64) ?? DEFAULT_CONCURRENCY;
  const timeoutMs = (parseSeconds('--timeout', opts.timeout) ?? DEFAULT_WAIT_SECONDS) * 1000;
  if (opts.meetingName !== undefined && opts.meetingName.length === 0) {
    throw new CliError(EXIT.usage, '--meeting-name must not be empty');
  }
  const speakers = parseSpeakerMap(opts.speaker);
  if (opts.files.length === 0) throw new CliError(EXIT.usage, 'name at least one transcript file');
  const files = await expandFiles(opts.files, ctx.cwd);
  const validate = opts.validate !== false;

  // Offline pre-validation of every file first: a bad batch sends nothing (cli.md, exit 2).
  const items: Item[] = [];
  let invalid = 0;
  for (const file of files) {
    const loaded = await loadTranscript(file, ctx.cwd, speakers);
    const body = requestBody(loaded, {
      ...rep,
      meetingName: opts.meetingName,
      missionId,
      scorecardId,
    });
    const unreadable = loaded.text === '' && loaded.problems.length > 0;
    const problems = unreadable || validate ? [...loaded.problems] : [];
    if (validate && !unreadable) problems.push(...prevalidate(loaded, body).problems);
    for (const w of loaded.warnings) ctx.log(`${safeLine(formatProblem(file, w))} (warning)`);
    if (problems.length > 0) {
      invalid++;
      for (const p of problems) ctx.error(safeLine(formatProblem(file, p)));
      if (ctx.json) {
        writeJson(ctx, {
          file,
          status: 'failed',
          error: { code: 'prevalidation_failed', message: 'failed pre-validation', problems },
        });
      }
      continue;
    }
    items.push({ loaded, body });
  }
  if (invalid > 0) {
    throw new CliError(
      EXIT.usage,
      `${invalid} of ${files.length} file${files.length === 1 ? '' : 's'} failed pre-validation, so nothing was uploaded; fix the lines above${validate ? ' (or pass --no-validate to let the service decide)' : ''}`,
    );
  }

  // The same text twice in one batch (a copied file) is one call: upload it once (R10: the
  // service does not de-duplicate).
  const firstWithText = new Map<string, string>();
  for (const item of items) {
    const first = firstWithText.get(item.body.transcript);
    if (first === undefined) firstWithText.set(item.body.transcript, item.loaded.file);
    else item.duplicateOf = first;
  }

  const client = await ctx.getClient();
  const ledgerPath = resolve(ctx.cwd, opts.ledger ?? DEFAULT_LEDGER);
  let ledger: Ledger;
  try {
    ledger = new Ledger(ledgerPath, ctx.redact).load().assertWritable();
  } catch (error) {
    throw new CliError(
      EXIT.usage,
      `cannot use the ledger ${opts.ledger ?? DEFAULT_LEDGER} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass --ledger FILE in a writable place`,
    );
  }
  if (ledger.unreadableLines.length > 0) {
    ctx.error(
      `warning: ignored unreadable line(s) ${ledger.unreadableLines.join(', ')} of the ledger ${opts.ledger ?? DEFAULT_LEDGER}`,
    );
  }
  // Stops the batch on Ctrl-C (requests in flight are cut and recorded as unknown).
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // A reader that went away (`| head`) stops the batch too: results would go nowhere.
  const onClosed = () => stop.abort(ctx.outputClosed?.reason);
  ctx.outputClosed?.addEventListener('abort', onClosed, { once: true });
  const progress = createProgress(ctx.stderr, ctx.stderrIsTTY && !ctx.quiet);
  const { default: pLimit } = await import('p-limit');
  const limit = pLimit(concurrency);
  const task = new UploadTask(ctx, client, ledger, progress, stop, {
    repKey: repKey(rep),
    repEmail: rep.email,
    force: Boolean(opts.force),
    wait: Boolean(opts.wait),
    timeoutMs,
  });
  let outcomes: (Outcome | null)[];
  try {
    outcomes = await Promise.all(
      items.map((item) =>
        limit(() => (stop.signal.aborted || task.authRefused ? null : task.one(item))),
      ),
    );
  } finally {
    progress.stop();
    ctx.signal.removeEventListener('abort', onAbort);
    ctx.outputClosed?.removeEventListener('abort', onClosed);
  }
  return summarize(ctx, files.length, outcomes, opts.ledger ?? DEFAULT_LEDGER);
}

function summarize(
  ctx: CliContext,
  total: number,
  outcomes: (Outcome | null)[],
  ledgerName: string,
): number {
  const done = outcomes.filter((o): o is Outcome => o !== null);
  const count = (s: UploadResult['status']) => done.filter((o) => o.result.status === s).length;
  const failed = done.filter((o) => o.result.status === 'failed');
  // Uploaded (and in the ledger), but with --wait reading the session back failed (not a timeout).
  const unread = done.filter(
    (o) =>
      o.result.status !== 'failed' && !o.waitTimedOut && !o.unrecorded && o.exitCode !== EXIT.ok,
  );
  const unrecorded = done.filter((o) => o.unrecorded);
  const notStarted = outcomes.length - done.length;
  ctx.log(
    `${count('created')} created, ${count('skipped')} skipped, ${failed.length} failed` +
      (notStarted ? `, ${notStarted} not started` : '') +
      ` (ledger: ${ledgerName})`,
  );
  if (ctx.outputClosed?.aborted && !ctx.signal.aborted) {
    // A closed stdout (`| head`) ends the command without a message (cli.md); on a terminal the
    // prose line still says where the batch stands.
    ctx.log(
      `standard output was closed, so the batch stopped: ${count('created')} uploaded and recorded in ${ledgerName}; run the same command again to upload the rest`,
    );
    return EXIT.ok;
  }
  if (ctx.signal.aborted || done.some((o) => o.interrupted)) {
    ctx.error(
      `interrupted: ${count('created')} uploaded and recorded in ${ledgerName}; run the same command again to upload the rest`,
    );
    return interruptedExitCode(ctx.signal.reason);
  }
  // The worst outcome decides the exit code: a 401 anywhere (4), then any item that did not end
  // well (its own code for one file, 3 for a batch), then sessions still not DONE (5).
  // The failing file's own line (printed as it finished) is the one clear line for one file.
  const bad = [...failed, ...unread, ...unrecorded];
  if (bad.some((o) => o.exitCode === EXIT.auth)) return EXIT.auth;
  if (bad.length > 0) {
    if (total === 1) return bad[0]?.exitCode ?? EXIT.failure;
    const parts: string[] = [];
    if (failed.length > 0) parts.push(`${failed.length} of ${total} uploads failed`);
    if (unrecorded.length > 0) {
      const ids = unrecorded.map((o) => safeLine(o.result.sessionId)).join(' ');
      parts.push(
        `${unrecorded.length} uploaded session${unrecorded.length === 1 ? '' : 's'} could not be recorded in the ledger (${ids})`,
      );
    }
    if (unread.length > 0) {
      const ids = unread.map((o) => safeLine(o.result.sessionId)).join(' ');
      parts.push(
        `${unread.length} uploaded session${unread.length === 1 ? '' : 's'} could not be read back (${ids}; \`rcs sessions wait <id>\` shows ${unread.length === 1 ? 'it' : 'them'})`,
      );
    }
    ctx.error(
      `${parts.join(' and ')} (see above); fix the cause and run the same command again: uploaded files are skipped (ledger ${ledgerName})`,
    );
    return EXIT.partial;
  }
  const timedOut = done.filter((o) => o.waitTimedOut);
  if (timedOut.length > 0) {
    const ids = timedOut.map((o) => safeLine(o.result.sessionId)).join(' ');
    ctx.error(
      `${timedOut.length} session${timedOut.length === 1 ? ' is' : 's are'} not DONE yet; wait again later with \`rcs sessions wait <id>\` (${ids})`,
    );
    return EXIT.waitTimeout;
  }
  return EXIT.ok;
}

function errnoOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ?? e?.message ?? String(error);
}

/** The ledger cannot take the `sending` line: the upload is not sent (issue 11). */
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

function writeJson(ctx: CliContext, result: UploadResult): void {
  ctx.stdout.write(`${JSON.stringify(result)}\n`);
}

interface TaskConfig {
  repKey: string;
  repEmail: string | undefined;
  force: boolean;
  wait: boolean;
  timeoutMs: number;
}

/** One file's upload: ledger check, create, ledger record, optional wait, output. */
class UploadTask {
  /** Set by the first 401: no further upload starts. */
  authRefused = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly client: RcsClient,
    private readonly ledger: Ledger,
    private readonly progress: Progress,
    private readonly stop: AbortController,
    private readonly config: TaskConfig,
  ) {}

  /** Stopped from outside: Ctrl-C / SIGTERM, or a reader of stdout that went away. */
  private halted(): boolean {
    return this.ctx.signal.aborted || this.ctx.outputClosed?.aborted === true;
  }

  async one(item: Item): Promise<Outcome> {
    const outcome = await this.upload(item);
    this.report(outcome);
    return outcome;
  }

  private async upload({ loaded, body, duplicateOf }: Item): Promise<Outcome> {
    const file = loaded.file;
    if (duplicateOf !== undefined) {
      return { result: { file, status: 'skipped', duplicateOf }, exitCode: 0 };
    }
    const sha256 = contentHash(body.transcript);
    const prior = this.config.force ? undefined : this.ledger.find(sha256, this.config.repKey);
    if (prior?.status === 'created' && prior.sessionId) {
      const result: UploadResult = { file, status: 'skipped', sessionId: prior.sessionId };
      return this.config.wait ? this.waitFor(result, prior.sessionId) : { result, exitCode: 0 };
    }
    if (prior?.status === 'unknown') {
      // Never silently re-sent: the first attempt may have created a session (R10, no dedupe).
      return {
        result: {
          file,
          status: 'failed',
          error: {
            code: 'unknown_outcome',
            message: `${file}: an earlier upload's outcome is unknown (the connection dropped after sending, ${prior.at}); it was not re-sent: look for it with \`rcs export real-call-sessions\`, then use --force to upload again`,
          },
        },
        exitCode: EXIT.failure,
      };
    }
    this.progress.set(file, `${safeLine(file)}: uploading`);
    // A request can reach the service only if the batch was still running when it was made.
    const sent = !this.stop.signal.aborted;
    const entry = { file, sha256, rep: this.config.repKey };
    if (sent) {
      // Write-ahead (issue 11): no create is sent unless the ledger can say it was.
      try {
        this.ledger.record({ ...entry, status: 'sending' });
      } catch (error) {
        return ledgerUnwritable(file, error);
      }
    }
    let session: RealCallSession;
    try {
      session = await this.client.sessions.create(body as never, { signal: this.stop.signal });
    } catch (error) {
      return this.failed(file, sha256, error, sent);
    }
    let unrecorded = false;
    try {
      this.ledger.record({ ...entry, status: 'created', sessionId: session.id });
    } catch (error) {
      unrecorded = true;
      // The session exists; the ledger's `sending` line keeps a re-run from sending it again,
      // and the id is on stderr so that nothing is lost.
      this.ctx.error(
        `${safeLine(file)}: uploaded as session ${safeLine(session.id)}, but the ledger could not record it (${errnoOf(error)}); a re-run will not upload it again`,
      );
    }
    const result: UploadResult = { file, status: 'created', sessionId: session.id, session };
    const outcome =
      this.config.wait && session.state !== 'DONE'
        ? await this.waitFor(result, session.id, FIRST_POLL_DELAY_MS)
        : { result, exitCode: 0 };
    return unrecorded
      ? { ...outcome, exitCode: outcome.exitCode || EXIT.failure, unrecorded: true }
      : outcome;
  }

  private failed(file: string, sha256: string, error: unknown, sent: boolean): Outcome {
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
    if (sent) {
      try {
        this.ledger.record({
          file,
          sha256,
          rep: this.config.repKey,
          status: unknown ? 'unknown' : 'failed',
          error: message,
        });
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

  private async waitFor(result: UploadResult, sessionId: string, delayMs = 0): Promise<Outcome> {
    const label = `${safeLine(result.file)} (${safeLine(sessionId)})`;
    this.progress.set(result.file, `${label}: waiting for the score`);
    try {
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.stop.signal });
      const session = await this.client.sessions.waitUntilDone(sessionId, {
        timeoutMs: this.config.timeoutMs,
        signal: this.stop.signal,
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

  /** Output as each upload finishes: a JSON line, or a result line (stdout) and errors (stderr). */
  private report(outcome: Outcome): void {
    const { result } = outcome;
    this.progress.done(result.file);
    if (this.ctx.json) {
      writeJson(this.ctx, result);
      if (result.status === 'failed' && !outcome.interrupted) this.progressError(result);
      return;
    }
    const file = safeLine(result.file);
    if (result.status === 'failed') {
      if (!outcome.interrupted) this.progressError(result);
      return;
    }
    if (result.duplicateOf !== undefined) {
      this.ctx.stdout.write(`skipped  ${file}  (same text as ${safeLine(result.duplicateOf)})\n`);
      return;
    }
    const note = result.status === 'skipped' ? '  (already uploaded; --force uploads again)' : '';
    // The id comes from the service (or the ledger): terminal-safe like any service text.
    this.ctx.stdout.write(`${result.status}  ${file}  ${safeLine(result.sessionId)}${note}\n`);
    if (outcome.waitTimedOut) {
      this.ctx.error(`${file}: session ${safeLine(result.sessionId)} is not DONE yet`);
    } else if (result.error) {
      this.ctx.error(
        `${file}: uploaded as session ${safeLine(result.sessionId)}, but reading it back failed: ${result.error.message}`,
      );
    }
    if (result.session && result.session.state === 'DONE') {
      this.ctx.stdout.write(
        `${renderSession(result.session, {
          color: this.ctx.color && this.ctx.stdoutIsTTY,
          ...(this.config.repEmail ? { repEmail: this.config.repEmail } : {}),
        })}\n`,
      );
    }
  }

  private progressError(result: UploadResult): void {
    const message = result.error?.message ?? 'failed';
    this.ctx.error(
      message.startsWith(result.file) ? message : `${safeLine(result.file)}: ${message}`,
    );
  }
}
