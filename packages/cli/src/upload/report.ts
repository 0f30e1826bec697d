import type { CliContext } from '../context.js';
import { interruptedExitCode } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { Progress } from '../output/progress.js';
import { safeLine } from '../output/sanitize.js';
import { renderSession } from '../output/session-view.js';
import type { Outcome, UploadResult } from './outcome.js';
import { formatProblem, type Problem } from './prepare.js';

/** A warning of one file, as its `--json` line carries it (cli.md). */
export interface UploadWarning {
  code: string;
  line?: number;
  message: string;
}

/**
 * What to do about a warning, by its code: the file is uploaded all the same, so the line says
 * what the user can change for the next file (or that nothing needs changing).
 */
const WHAT_TO_DO: Record<string, string> = {
  not_a_transcript: 'Uploading it anyway; --strict refuses such files',
  skipped_line:
    'If it is speech, give it a speaker label (Name: text) and upload again with --force.',
  timing_estimated:
    'For exact timings, export the transcript with its timestamps from the meeting tool and upload that file.',
  text_looks_like_label:
    "If the words are the speaker's, give the turn its speaker; otherwise reword its start.",
  text_looks_like_timing: 'If it is not meant as a timing, edit that line.',
  missing_webvtt_header: 'Nothing to do if `rcs check FILE` reads the cues as you expect.',
  blank_before_webvtt_header: 'Nothing to do.',
  utf16_without_bom: 'Re-save the file as UTF-8 to be sure it is read as written.',
};

function whatToDo(file: string, code: string): string {
  return WHAT_TO_DO[code] ?? `\`rcs check ${file}\` shows how the file is read.`;
}

/** A file's warnings for its `--json` line: `{ code, line?, message }` each. */
export function warningsOf(warnings: readonly Problem[]): UploadWarning[] {
  return warnings.map((w) => ({
    code: w.code ?? 'warning',
    ...(w.line ? { line: w.line } : {}),
    message: w.message,
  }));
}

/**
 * Each warning of a file as one plain line on stderr, on a terminal or not (a cron log must show
 * that lines were left out or timings estimated): the file and line, what, and what to do.
 */
export function reportWarnings(ctx: CliContext, file: string, warnings: readonly Problem[]): void {
  for (const w of warnings) {
    const hint = whatToDo(file, w.code ?? 'warning');
    ctx.error(`warning: ${safeLine(formatProblem(file, w))} ${safeLine(hint)}`);
  }
}

export function summarize(
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

export function writeJson(ctx: CliContext, result: UploadResult): void {
  ctx.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Output as each upload finishes: a JSON line, or a result line (stdout) and errors (stderr). */
export function reportOutcome(
  ctx: CliContext,
  progress: Progress,
  repEmail: string | undefined,
  outcome: Outcome,
): void {
  const { result } = outcome;
  progress.done(result.file);
  if (ctx.json) {
    writeJson(ctx, result);
    if (result.status === 'failed' && !outcome.interrupted) progressError(ctx, result);
    return;
  }
  const file = safeLine(result.file);
  if (result.status === 'failed') {
    if (!outcome.interrupted) progressError(ctx, result);
    return;
  }
  if (result.duplicateOf !== undefined) {
    ctx.stdout.write(`skipped  ${file}  (same text as ${safeLine(result.duplicateOf)})\n`);
    return;
  }
  const note =
    result.status !== 'skipped'
      ? ''
      : result.foundOnService
        ? "  (found on the service: an earlier upload's outcome was unknown; now in the ledger)"
        : result.otherRun
          ? `  (uploaded by another rcs upload, pid ${result.otherRun.pid} on ${safeLine(result.otherRun.host)}, that this run waited for)`
          : '  (already uploaded; --force uploads again)';
  // The id comes from the service (or the ledger): terminal-safe like any service text.
  ctx.stdout.write(`${result.status}  ${file}  ${safeLine(result.sessionId)}${note}\n`);
  if (outcome.waitTimedOut) {
    ctx.error(`${file}: session ${safeLine(result.sessionId)} is not DONE yet`);
  } else if (result.error) {
    ctx.error(
      `${file}: uploaded as session ${safeLine(result.sessionId)}, but reading it back failed: ${result.error.message}`,
    );
  }
  if (result.session && result.session.state === 'DONE') {
    ctx.stdout.write(
      `${renderSession(result.session, {
        color: ctx.color && ctx.stdoutIsTTY,
        ...(repEmail ? { repEmail: repEmail } : {}),
      })}\n`,
    );
  }
}

function progressError(ctx: CliContext, result: UploadResult): void {
  const message = result.error?.message ?? 'failed';
  ctx.error(message.startsWith(result.file) ? message : `${safeLine(result.file)}: ${message}`);
}
