/** The options of `rcs upload` as its flags give them (upload.command.ts declares the flags). */
export interface UploadOptions {
  files: string[];
  email?: string;
  userId?: string;
  meetingName?: string;
  missionId?: string;
  scorecardId?: string;
  speaker?: string[];
  wait?: boolean;
  /** Seconds, as typed: with --wait the wait for DONE per session, else the network deadline. */
  timeout?: string;
  concurrency?: number;
  ledger?: string;
  force?: boolean;
  /** --dry-run: say what each file would come to (and which ledger line decided it); send nothing. */
  dryRun?: boolean;
  /** false with --no-resolve: unknown outcomes are not looked up on the service (D28). */
  resolve?: boolean;
  /** false with --no-validate. */
  validate?: boolean;
  /** --strict: a file that does not look like a transcript is refused. */
  strict?: boolean;
}

export const DEFAULT_UPLOAD_CONCURRENCY = 4;
export const DEFAULT_LEDGER = '.rcs-ledger.jsonl';
