import { checkNumber } from '@rcs/client/internal';
import { DEFAULT_WAIT_SECONDS, hex24, repDesignator } from '../commands/validate-flags.js';
import type { CliContext } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { parseSeconds, type RequestDeadline } from '../network/deadline.js';
import { safeLine } from '../output/sanitize.js';
import { expandFiles, parseSpeakerMap } from './files.js';
import { DEFAULT_UPLOAD_CONCURRENCY, type UploadOptions } from './options.js';
import type { Item, Outcome } from './outcome.js';
import {
  formatProblem,
  loadTranscript,
  type Problem,
  prevalidate,
  requestBody,
} from './prepare.js';
import { reportWarnings, warningsOf, writeJson } from './report.js';

/** A batch, checked and read: every flag and every file before anything is sent (cli.md, exit 2). */
export interface UploadPlan {
  files: string[];
  items: Item[];
  /** Files of a batch that failed pre-validation: reported already, never sent (exit 3). */
  rejected: Outcome[];
  /** A directory's entries that are not regular files: reported already, never read. */
  skipped: Outcome[];
  rep: ReturnType<typeof repDesignator>;
  concurrency: number;
  /** With --wait: the longest wait for DONE per session. */
  timeoutMs: number;
  /** What --timeout means for each request: the wait with --wait, else the network deadline. */
  deadline: RequestDeadline | undefined;
}

export async function planUpload(opts: UploadOptions, ctx: CliContext): Promise<UploadPlan> {
  // Every flag is checked before anything is read or sent (exit 2).
  const rep = repDesignator(opts, true);
  const missionId = hex24('--mission-id', opts.missionId);
  const scorecardId = hex24('--scorecard-id', opts.scorecardId);
  const concurrency = checkNumber(
    '--concurrency',
    opts.concurrency ?? DEFAULT_UPLOAD_CONCURRENCY,
    { min: 1, max: 64 },
    usageError,
  );
  const timeout = parseSeconds('--timeout', opts.timeout);
  const waitSeconds = timeout ?? DEFAULT_WAIT_SECONDS;
  const deadline: RequestDeadline | undefined = opts.wait
    ? { waitSeconds }
    : timeout === undefined
      ? undefined
      : { timeoutSeconds: timeout };
  if (opts.meetingName !== undefined && opts.meetingName.length === 0) {
    throw new CliError(EXIT.usage, '--meeting-name must not be empty');
  }
  const speakers = parseSpeakerMap(opts.speaker);
  if (opts.files.length === 0) throw new CliError(EXIT.usage, 'name at least one transcript file');
  const { files, skipped: entries } = await expandFiles(opts.files, ctx.cwd);
  const skipped = entries.map(
    (e): Outcome => ({ result: { ...e, status: 'skipped' }, exitCode: 0 }),
  );
  for (const { result } of skipped) {
    if (ctx.json) writeJson(ctx, result);
    else ctx.stdout.write(`skipped  ${safeLine(result.file)}  (${result.reason?.message})\n`);
  }
  if (files.length === 0) {
    throw new CliError(EXIT.usage, 'nothing to upload: no regular transcript file (see above)');
  }
  const validate = opts.validate !== false;

  // Offline pre-validation of every file first (cli.md): one file that fails is exit 2 with
  // nothing sent; in a batch, a file that fails is reported and skipped, the others go, exit 3.
  const items: Item[] = [];
  const rejected: Outcome[] = [];
  let unreadableFiles = 0;
  const single = files.length === 1;
  for (const file of files) {
    const loaded = await loadTranscript(file, ctx.cwd, speakers, { validate });
    const body = requestBody(loaded, {
      ...rep,
      meetingName: opts.meetingName,
      missionId,
      scorecardId,
    });
    const unreadable = loaded.text === '' && loaded.problems.length > 0;
    const problems = unreadable || validate ? [...loaded.problems] : [];
    if (validate && !unreadable) {
      const checked = prevalidate(loaded, body);
      problems.push(...checked.problems);
      // docs/cli-reference.md: a file that does not look like a transcript is a warning, always
      // shown (a wrong file costs a scoring run), and with --strict a problem.
      if (checked.notTranscript && opts.strict) problems.push(checked.notTranscript);
      else if (checked.notTranscript) loaded.warnings.push(checked.notTranscript);
    }
    // Every warning reaches stderr as one line, on a terminal or not, and the file's --json line.
    reportWarnings(ctx, file, loaded.warnings);
    if (problems.length > 0) {
      if (unreadable && problems.every((p) => p.code === 'unreadable_file')) unreadableFiles++;
      if (single) for (const p of problems) ctx.error(safeLine(formatProblem(file, p)));
      else ctx.error(batchLine(file, problems));
      const error = { code: 'prevalidation_failed', message: 'failed pre-validation', problems };
      const warnings = warningsOf(loaded.warnings);
      if (ctx.json) writeJson(ctx, { file, status: 'failed', error, warnings });
      rejected.push({ result: { file, status: 'failed', error }, exitCode: EXIT.usage });
      continue;
    }
    items.push({ loaded, body });
  }
  if (items.length === 0) {
    // A file that cannot be read is not the service's to judge, so --no-validate would not help;
    // its own line says why ("unreadable: check permissions").
    const invalid = rejected.length;
    const hint =
      unreadableFiles === invalid
        ? ''
        : validate
          ? ' (or pass --no-validate to let the service decide)'
          : '';
    throw new CliError(
      EXIT.usage,
      `${single ? 'the file' : `all ${invalid} files`} failed pre-validation, so nothing was uploaded; fix the lines above${hint}`,
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
  const timeoutMs = waitSeconds * 1000;
  return { files, items, rejected, skipped, rep, concurrency, timeoutMs, deadline };
}

/**
 * A batch's one line for a file that failed pre-validation: the file, its first problem with
 * its line, and how to see the rest (`rcs check` lists every one).
 */
function batchLine(file: string, problems: Problem[]): string {
  const more =
    problems.length > 1
      ? `; ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'}: \`rcs check ${file}\` lists them`
      : '';
  return `${safeLine(formatProblem(file, problems[0]!))} (not uploaded, the rest of the batch goes on${safeLine(more)})`;
}
