/**
 * `rcs upload` (cli.md): plan (flags, files, pre-validation: ../upload/plan.ts), run each file's
 * upload under the ledger (../upload/task.ts), report (../upload/report.ts).
 */
import { resolve } from 'node:path';
import { acquireLock, type FileLock, type LockOwner } from '@rcs/export/internal';
import type { CliContext } from '../context.js';
import { CliError, interruptedExitCode, isUnsafeFile } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { safeLine } from '../output/sanitize.js';
import { decide, settleLookups } from '../upload/decision.js';
import { reportDryRun } from '../upload/dry-run.js';
import { Ledger, repKey } from '../upload/ledger.js';
import { DEFAULT_LEDGER, type UploadOptions } from '../upload/options.js';
import type { Outcome } from '../upload/outcome.js';
import { planUpload } from '../upload/plan.js';
import { summarize } from '../upload/report.js';
import { serviceIdentity } from '../upload/service.js';
import { UploadTask } from '../upload/task.js';

export type { UploadOptions } from '../upload/options.js';

export async function run(opts: UploadOptions, ctx: CliContext): Promise<number> {
  const { files, items, rejected, skipped, rep, concurrency, timeoutMs, deadline } =
    await planUpload(opts, ctx);
  const client = await ctx.getClient(deadline);
  const ledgerPath = resolve(ctx.cwd, opts.ledger ?? DEFAULT_LEDGER);
  const ledgerName = opts.ledger ?? DEFAULT_LEDGER;
  // D28 across processes: one run at a time writes the ledger (a dry run writes nothing).
  const held = opts.dryRun ? undefined : await lockLedger(ctx, ledgerPath, ledgerName);
  try {
    return await runLocked(
      opts,
      ctx,
      { files, items, rejected: [...rejected, ...skipped], rep, concurrency, timeoutMs, client },
      held,
    );
  } finally {
    await held?.lock?.release();
  }
}

/**
 * How long a ledger's lock goes unchanged before a waiting run takes it over (cli-reference.md:
 * 20 s, as the waiting process measures time); its holder touches it every eighth of that.
 */
const LEDGER_LEASE_MS = 20_000;

async function lockLedger(
  ctx: CliContext,
  ledgerPath: string,
  ledgerName: string,
): Promise<{ lock?: FileLock; waitedFor?: LockOwner | undefined; full?: Error }> {
  let waitedFor: LockOwner | undefined;
  const who = (o: LockOwner | undefined) =>
    o
      ? `pid ${o.pid} on ${safeLine(o.host)}${o.startedAt === undefined ? '' : `, running since ${safeLine(o.startedAt)}`}`
      : 'unknown';
  try {
    // D28 across processes: a second run waits for the first, then skips what it recorded.
    const lock = await acquireLock(`${ledgerPath}.lock`, {
      name: 'ledger lock',
      leaseMs: LEDGER_LEASE_MS,
      wait: true,
      signal: ctx.signal,
      onWait: (holder) => {
        waitedFor = holder;
        ctx.error(
          `waiting for another rcs upload (${who(holder)}) that is writing the ledger ${ledgerName}: what it uploads is skipped here, the rest uploaded`,
        );
      },
      onTakeover: (stale, why) => {
        ctx.error(
          `note: the rcs upload that held the ledger ${ledgerName} (${who(stale)}) is gone (${why}); this run goes on from what it recorded (uploads it left unfinished are looked up on the service)`,
        );
      },
    });
    return { lock, waitedFor };
  } catch (error) {
    if (ctx.signal.aborted) {
      throw new CliError(
        interruptedExitCode(ctx.signal.reason),
        `interrupted while waiting for the ledger ${ledgerName}; nothing was sent`,
      );
    }
    if (isUnsafeFile(error)) {
      throw new CliError(EXIT.usage, `cannot lock the ledger: ${error.message}`);
    }
    // A full disk cannot take the lock, nor any ledger line: each file says so (not uploaded).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return { full: error as Error };
    throw new CliError(
      EXIT.usage,
      `cannot lock the ledger ${ledgerName} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass --ledger FILE in a writable place`,
    );
  }
}

async function runLocked(
  opts: UploadOptions,
  ctx: CliContext,
  plan: Pick<
    Awaited<ReturnType<typeof planUpload>>,
    'files' | 'items' | 'rejected' | 'rep' | 'concurrency' | 'timeoutMs'
  > & {
    client: Awaited<ReturnType<CliContext['getClient']>>;
  },
  held: { lock?: FileLock; waitedFor?: LockOwner | undefined; full?: Error } | undefined,
): Promise<number> {
  const { files, items, rejected, rep, concurrency, timeoutMs, client } = plan;
  // D28: the ledger's lines count only for this service and credential.
  const service = serviceIdentity(client.baseUrl, await ctx.getCredentials());
  const ledgerPath = resolve(ctx.cwd, opts.ledger ?? DEFAULT_LEDGER);
  let ledger: Ledger;
  try {
    ledger = new Ledger(ledgerPath, service, ctx.redact).load();
    if (!opts.dryRun) ledger.assertWritable();
    if (held?.full) ledger.refuseWrites(held.full);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (isUnsafeFile(error)) {
      throw new CliError(EXIT.usage, `cannot use the ledger: ${error.message}`);
    }
    throw new CliError(
      EXIT.usage,
      `cannot use the ledger ${opts.ledger ?? DEFAULT_LEDGER} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); pass --ledger FILE in a writable place`,
    );
  }
  if (ledger.unreadableLines.length > 0) {
    ctx.error(
      `warning: ignored unreadable line(s) ${ledger.unreadableLines.join(', ')} of the ledger ${opts.ledger ?? DEFAULT_LEDGER}`,
    );
  }
  if (ledger.foreignSaltLines.length > 0) {
    // One notice for them all, however many (a crafted ledger can hold thousands).
    const lines = ledger.foreignSaltLines;
    const shown = lines.slice(0, 5).join(', ') + (lines.length > 5 ? ', …' : '');
    ctx.error(
      `note: ignored ${lines.length} line${lines.length === 1 ? '' : 's'} of the ledger ${opts.ledger ?? DEFAULT_LEDGER} (${shown}): their credential fingerprint uses another salt than the ledger's first line, and rcs writes every line of a ledger with that one salt`,
    );
  }
  const decideConfig = { repKey: repKey(rep), force: Boolean(opts.force) };
  const decisions = items.map((item) => decide(item, ledger, decideConfig));
  const other = held?.waitedFor;
  if (other) {
    // Recorded by the run this one waited for: said so (D28 across processes).
    decisions.forEach((d, i) => {
      if (d.action === 'skip' && other.startedAt !== undefined && d.record.at >= other.startedAt) {
        decisions[i] = { ...d, otherRun: { pid: other.pid, host: other.host } };
      }
    });
  }
  if (opts.dryRun) {
    const code = reportDryRun(ctx, items, decisions);
    return rejected.some((o) => o.exitCode !== EXIT.ok) ? EXIT.partial : code;
  }
  // Stops the batch on Ctrl-C (requests in flight are cut and recorded as unknown).
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // A reader that went away (`| head`) stops the batch too: results would go nowhere.
  const onClosed = () => stop.abort(ctx.outputClosed?.reason);
  ctx.outputClosed?.addEventListener('abort', onClosed, { once: true });
  const progress = ctx.progress();
  const { default: pLimit } = await import('p-limit');
  const limit = pLimit(concurrency);
  const task = new UploadTask(ctx, client, ledger, progress, stop, {
    repKey: repKey(rep),
    repEmail: rep.email,
    wait: Boolean(opts.wait),
    timeoutMs,
    assertHeld: held?.lock?.assertHeld,
  });
  let outcomes: (Outcome | null)[];
  try {
    // Unknown outcomes first, all in one pass over the sessions export (D28).
    await settleLookups(ctx, client, ledger, items, decisions, {
      resolve: opts.resolve !== false,
      rep,
      signal: stop.signal,
      progress,
    });
    outcomes = await Promise.all(
      items.map((item, i) =>
        limit(() =>
          stop.signal.aborted || task.authRefused || task.lockLost
            ? null
            : task.one(item, decisions[i] ?? { action: 'upload' }),
        ),
      ),
    );
  } finally {
    progress.stop();
    ctx.signal.removeEventListener('abort', onAbort);
    ctx.outputClosed?.removeEventListener('abort', onClosed);
  }
  if (task.lockLost) {
    ctx.error(
      `${task.lockLost.message}; run the same command again later: what the other run uploaded is skipped`,
    );
    return EXIT.failure;
  }
  // Files that failed pre-validation count as failed items of the batch (exit 3, cli.md).
  return summarize(ctx, files.length, [...rejected, ...outcomes], opts.ledger ?? DEFAULT_LEDGER);
}
