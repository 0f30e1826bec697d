import { EXIT } from './exit-codes.js';

/**
 * An error the CLI itself raises: it carries its exit code and a one-line message that says what
 * is wrong and what to do (cli.md: "every non-zero exit prints one clear line on stderr").
 */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);

/** @rcs/export's UnsafeFileError, by name: its class would load the engine into `rcs upload`. */
export const isUnsafeFile = (error: unknown): error is Error =>
  error instanceof Error && error.name === 'UnsafeFileError';

/**
 * The abort reason when the user presses Ctrl-C (SIGINT), the process gets SIGTERM, or the reader
 * of stdout went away (`rcs … | head`, reported as SIGPIPE).
 */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM' | 'SIGPIPE' = 'SIGINT') {
    super(`interrupted (${signal})`);
  }
}

/**
 * Commander's parse errors quote what was typed, and that can be a secret: a mistyped
 * `--api-keyy=sk_live_…` comes back as `unknown option '--api-keyy=sk_live_…'`. This keeps the
 * option name and drops the value (`--api-keyy=…`, `-X…`), so that no secret reaches the terminal
 * or a CI log (cli.md). A value given as a separate argument is never quoted by commander; a
 * rejected choice (`--format xml`) is, and stays: those options take no secrets.
 */
export function maskCommanderError(message: string): string {
  return (
    message
      // `unknown option '<arg>'` (then maybe "\n(Did you mean …?)", which quotes no input): the
      // last quote of the message closes <arg>, whatever quotes <arg> itself holds.
      .replace(/(unknown option ')([\s\S]*)'/, (_m, head: string, arg: string) => {
        const long = /^(--[^=]*)=/.exec(arg);
        if (long) return `${head}${long[1]}=…'`;
        // `-Xvalue`: a short option with its value (or other options) attached.
        if (/^-[^-]./.test(arg)) return `${head}${arg.slice(0, 2)}…'`;
        return `${head}${arg}'`;
      })
  );
}

/**
 * The exit code of a run stopped by `signal`: 130 for SIGINT (cli.md), 143 for SIGTERM; a reader
 * of stdout that went away (SIGPIPE, EPIPE, `rcs … | head`) took what it wanted, which is normal
 * for a Unix tool (cli.md "Unattended runs"): 0, and no message.
 */
export function signalExitCode(signal: InterruptedError['signal']): number {
  if (signal === 'SIGTERM') return EXIT.terminated;
  if (signal === 'SIGPIPE') return EXIT.ok;
  return EXIT.interrupted;
}

/** The exit code for an abort reason: by its signal when it is an InterruptedError, else 130. */
export function interruptedExitCode(reason: unknown): number {
  return reason instanceof InterruptedError ? signalExitCode(reason.signal) : EXIT.interrupted;
}

/**
 * Where the credentials of this run came from, as the user gave them: `--api-key`,
 * `--api-key-file FILE`, `RCS_API_KEY`, or the config file's path and profile. A 401 names it
 * ("check RCS_API_KEY" misleads a user who typed --api-key). A run resolves its
 * credentials once; context.ts notes them when it builds the client, and every caller of
 * describeError (describe-error.ts: the command wrapper, the upload batch, the export) gets the
 * same line.
 */
export interface CredentialSources {
  apiKey?: string | undefined;
  token?: string | undefined;
  /** Set when a credential came from the config file: the command that replaces it. */
  replaceWith?: string | undefined;
}

let credentialSources: CredentialSources = {};

export function noteCredentialSources(sources: CredentialSources): void {
  credentialSources = sources;
}

/** The sources context.ts noted for this run (describe-error.ts names them on a 401). */
export const notedCredentialSources = (): CredentialSources => credentialSources;
