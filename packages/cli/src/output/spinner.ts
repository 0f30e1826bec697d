import type { CliContext } from '../context.js';

/** An ora spinner on stderr, only on a TTY and not with --quiet (loaded only when shown). */
export async function startSpinner(ctx: CliContext, text: string) {
  if (!ctx.stderrIsTTY || ctx.quiet) return undefined;
  // ora divides by the terminal width to count lines to clear: a pseudo-terminal that reports 0
  // columns (e.g. `script` without a size) would make it clear forever. No width, no spinner.
  const columns = (ctx.stderr as NodeJS.WriteStream).columns;
  if (!(typeof columns === 'number' && columns > 0)) return undefined;
  const { default: ora } = await import('ora');
  // discardStdin off: ora's stdin handling would otherwise swallow Ctrl-C on some terminals.
  return ora({
    text,
    stream: ctx.stderr as NodeJS.WriteStream,
    color: 'cyan',
    discardStdin: false,
  }).start();
}
