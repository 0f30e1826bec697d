/**
 * What every command module gets to declare itself (gh's layout): each
 * `<name>.command.ts` holds its flags next to the typed options of its `run`, and imports the
 * run module lazily in its action, so `rcs --help` loads commander and these declarations only.
 * Flags and options agree at compile time: commander's extra typings give each action the types
 * its flags declare, and `run` takes them without a cast.
 */
import { type Command, InvalidArgumentError } from '@commander-js/extra-typings';
import type { CliContext, CliIO } from '../context.js';

/** The root command, with the global flags of cli.md. */
// biome-ignore lint/suspicious/noExplicitAny: the root's option types are the globals, checked in context.ts
export type RootCommand = Command<[], any, any>;

export interface CommandKit {
  io: CliIO;
  /**
   * Wraps a runner: builds the context from the global flags, runs, and maps any error to one
   * line and its exit code (cli.md).
   */
  action<A extends unknown[]>(
    runner: (ctx: CliContext, ...args: A) => Promise<number>,
  ): (...args: A) => Promise<void>;
}

/** A command module: registers its command (and subcommands) on the root. */
export type RegisterCommand = (root: RootCommand, kit: CommandKit) => void;

export const examples = (lines: string[]) =>
  `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

/** For repeatable flags (`--speaker A --speaker B`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * commander's argParser of a number flag: digits, maybe with a decimal point (no sign, exponent
 * or hex), else a usage error (exit 2) naming the flag. Its range is checked where it is used,
 * by the one number check of every package (@rcs/client's checkNumber, which names the flag and
 * the range): importing the client here would load it for `rcs --help`.
 */
export function numberText(raw: string): number {
  const text = raw.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) {
    throw new InvalidArgumentError('It must be a number in digits (no sign or exponent)');
  }
  return Number(text);
}

/**
 * `--timeout` where it is the network deadline (cli.md "Networks"): every command that talks to
 * the service without waiting for DONE.
 */
export const TIMEOUT_HELP =
  'give up on a request after this many seconds, retries included (default 60, env RCS_NETWORK_TIMEOUT)';
