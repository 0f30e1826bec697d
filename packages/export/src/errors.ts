/**
 * Bad input to an export (an unknown resource, a flag that does not apply, an output directory
 * that cannot be used), found before any request. The message names what is wrong; a command
 * line maps it to its usage exit code (cli.md: exit 2).
 */
export class ExportUsageError extends Error {
  override name = 'ExportUsageError';
}

export const usageError = (message: string) => new ExportUsageError(message);
