/**
 * Base of every error the export engine throws, so that a caller can tell the engine's failures
 * from everything else (the SDK's errors reach it as a `cause`).
 */
export class ExportError extends Error {
  override name = 'ExportError';
  /** The export it concerns (`users`, …), when it concerns one. */
  resource: string | undefined;
}

/**
 * Bad input to an export (an unknown resource, an option that does not apply, an output
 * directory that cannot be used), found before any request. The message names the options as
 * this library takes them, each between backticks (`format`, `rowGroupRows`), and nothing else is
 * between backticks: a command line can put its own flag names there (`rcs`: `--format`,
 * `--row-group-rows`) and map the error to its usage exit code.
 */
export class ExportUsageError extends ExportError {
  override name = 'ExportUsageError';
}

export const usageError = (message: string) => new ExportUsageError(message);
