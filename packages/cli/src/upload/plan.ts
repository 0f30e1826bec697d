import {
  DEFAULT_WAIT_SECONDS,
  hex24,
  parsePositiveInt,
  repDesignator,
} from '../commands/validate-flags.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { parseSeconds, type RequestDeadline } from '../network/deadline.js';
import { safeLine } from '../output/sanitize.js';
import { expandFiles, parseSpeakerMap } from './files.js';
import { DEFAULT_UPLOAD_CONCURRENCY, type UploadOptions } from './options.js';
import type { Item } from './outcome.js';
import { formatProblem, loadTranscript, prevalidate, requestBody } from './prepare.js';
import { reportWarnings, warningsOf, writeJson } from './report.js';

/** A batch, checked and read: every flag and every file before anything is sent (cli.md, exit 2). */
export interface UploadPlan {
  files: string[];
  items: Item[];
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
  const concurrency =
    parsePositiveInt('--concurrency', opts.concurrency, 64) ?? DEFAULT_UPLOAD_CONCURRENCY;
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
  const files = await expandFiles(opts.files, ctx.cwd);
  const validate = opts.validate !== false;

  // Offline pre-validation of every file first: a bad batch sends nothing (cli.md, exit 2).
  const items: Item[] = [];
  let invalid = 0;
  let unreadableFiles = 0;
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
    if (validate && !unreadable) {
      const checked = prevalidate(loaded, body);
      problems.push(...checked.problems);
      // Issue 28 (docs/cli.md): a file that does not look like a transcript is a warning, always
      // shown (a wrong file costs a scoring run), and with --strict a problem.
      if (checked.notTranscript && opts.strict) problems.push(checked.notTranscript);
      else if (checked.notTranscript) loaded.warnings.push(checked.notTranscript);
    }
    // Every warning reaches stderr as one line, on a terminal or not, and the file's --json line.
    reportWarnings(ctx, file, loaded.warnings);
    if (problems.length > 0) {
      invalid++;
      if (unreadable && problems.every((p) => p.code === 'unreadable_file')) unreadableFiles++;
      for (const p of problems) ctx.error(safeLine(formatProblem(file, p)));
      if (ctx.json) {
        writeJson(ctx, {
          file,
          status: 'failed',
          error: { code: 'prevalidation_failed', message: 'failed pre-validation', problems },
          warnings: warningsOf(loaded.warnings),
        });
      }
      continue;
    }
    items.push({ loaded, body });
  }
  if (invalid > 0) {
    // A file that cannot be read is not the service's to judge, so --no-validate would not help;
    // its own line says why ("unreadable: check permissions", issue 28).
    const hint =
      unreadableFiles === invalid
        ? ''
        : validate
          ? ' (or pass --no-validate to let the service decide)'
          : '';
    throw new CliError(
      EXIT.usage,
      `${invalid} of ${files.length} file${files.length === 1 ? '' : 's'} failed pre-validation, so nothing was uploaded; fix the lines above${hint}`,
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
  return { files, items, rep, concurrency, timeoutMs: waitSeconds * 1000, deadline };
}
