import type { RealCallSession, RequestStats } from '@rcs/client';
import type { LoadedTranscript, Problem, requestBody } from './prepare.js';
import type { UploadWarning } from './report.js';

/** What one file's upload came to, and the `--json` line that reports it (cli.md). */
/** One line of `--json` output (cli.md). */
export interface UploadResult {
  file: string;
  status: 'created' | 'skipped' | 'failed';
  sessionId?: string;
  session?: RealCallSession;
  error?: { code?: string; status?: number; message: string; problems?: Problem[] };
  /** For `skipped`: the file of this batch with the same text, which was uploaded instead. */
  duplicateOf?: string;
  /** For `skipped`: an earlier upload whose outcome was unknown was found on the service (D28). */
  foundOnService?: boolean;
  /** For `skipped`: uploaded by a concurrent `rcs upload` that this run waited for (D28). */
  otherRun?: { pid: number; host: string };
  /** For `skipped`: a directory's entry that is not a regular file (a link, a FIFO), not read. */
  reason?: { code: string; message: string };
  /**
   * What this file's requests came to (the run summary, per file): the create and, with
   * `--wait`, the reads; retries, 429s, time waited for rate limits, bytes sent and read.
   */
  summary?: RequestStats;
  /** The file's warnings (lines left out, timings estimated, …), also on stderr (cli.md). */
  warnings?: UploadWarning[];
}

export interface Outcome {
  result: UploadResult;
  exitCode: number;
  waitTimedOut?: boolean;
  interrupted?: boolean;
  /** Created, but the ledger could not record it (a full disk): exit non-zero. */
  unrecorded?: boolean;
}

export interface Item {
  loaded: LoadedTranscript;
  body: ReturnType<typeof requestBody>;
  /** The earlier file of this batch with the same text: sending both would score one call twice. */
  duplicateOf?: string;
}

export function errorInfo(error: unknown, message: string): UploadResult['error'] {
  const e = error as { code?: unknown; status?: unknown };
  const info: NonNullable<UploadResult['error']> = { message };
  if (typeof e?.code === 'string') info.code = e.code;
  if (typeof e?.status === 'number') info.status = e.status;
  return info;
}
