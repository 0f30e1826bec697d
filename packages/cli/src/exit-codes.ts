/**
 * The exit codes of the CLI contract (docs/cli.md). Scripts branch on these numbers, so
 * they never change meaning; `rcs help exit-codes` prints this table.
 */
export const EXIT = {
  ok: 0,
  /** The service or the network failed after retries, or any other runtime failure. */
  failure: 1,
  /** Usage error, or input rejected before any request. */
  usage: 2,
  /** A batch finished but some items failed. */
  partial: 3,
  /** No credentials, or the service answered 401. */
  auth: 4,
  /** Timed out waiting for a session to reach DONE. */
  waitTimeout: 5,
  /** SIGINT. */
  interrupted: 130,
  /**
   * SIGTERM (128 + 15, the shell's convention). cli.md's table lists only SIGINT (130); 143 is an
   * addition documented in the README and EXPORT.md, so that a scheduler can tell its own stop
   * from a Ctrl-C.
   */
  terminated: 143,
} as const;

export const EXIT_CODE_TABLE: readonly [number, string][] = [
  [EXIT.ok, 'success (an empty export is a success)'],
  [EXIT.failure, 'the service or the network failed after retries, or any other runtime failure'],
  [
    EXIT.usage,
    'usage error, or input rejected before any request (bad flag, failed pre-validation, unreadable file)',
  ],
  [EXIT.partial, 'partial: a batch finished but some items failed'],
  [EXIT.auth, 'authentication: no credentials, or the service answered 401'],
  [
    EXIT.waitTimeout,
    'timed out waiting for a session to reach DONE (the id is printed: wait again)',
  ],
  [EXIT.interrupted, 'interrupted (SIGINT); 143 for SIGTERM'],
];

export function exitCodesText(): string {
  const rows = EXIT_CODE_TABLE.map(
    ([code, meaning]) => `  ${String(code).padStart(3)}  ${meaning}`,
  );
  return `Exit codes of rcs:\n\n${rows.join('\n')}\n`;
}
