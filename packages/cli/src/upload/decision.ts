import type { RcsClient } from '@rcs/client';
import type { CliContext } from '../context.js';
import { describeError } from '../describe-error.js';
import type { Progress } from '../output/progress.js';
import { safeLine } from '../output/sanitize.js';
import { contentHash, type Ledger, type LedgerRecord } from './ledger.js';
import type { Item } from './outcome.js';
import { resolveUnknownUploads } from './resolve.js';

/**
 * What a batch does with each file, decided from the ledger before anything is sent (D28):
 * - `duplicate`: the same text as an earlier file of this batch (sent once);
 * - `skip`: a `created` line of this service says it was uploaded (`found`: this run found it on
 *   the service, its outcome having been unknown; `otherRun`: recorded by a concurrent run this
 *   one waited for);
 * - `lookup`: its outcome is unknown (or its line predates D28): look for it on the service first;
 * - `unknown`: its outcome is unknown and could not be resolved: not sent (never a double upload);
 * - `upload`: send it.
 */
export type Decision =
  | { action: 'duplicate'; of: string }
  | {
      action: 'skip';
      record: LedgerRecord;
      found?: boolean;
      /** Recorded by the concurrent run this one waited for (the ledger's lock: commands/upload.ts). */
      otherRun?: { pid: number; host: string };
    }
  | { action: 'lookup'; record: LedgerRecord }
  | { action: 'unknown'; record: LedgerRecord; reason: string }
  | { action: 'upload' };

export interface DecideConfig {
  repKey: string;
  force: boolean;
}

export function decide(item: Item, ledger: Ledger, config: DecideConfig): Decision {
  if (item.duplicateOf !== undefined) return { action: 'duplicate', of: item.duplicateOf };
  // --force uploads again whatever the ledger says.
  if (config.force) return { action: 'upload' };
  const match = ledger.find(contentHash(item.body.transcript), config.repKey);
  if (match === undefined) return { action: 'upload' };
  if (match.kind === 'uploaded') return { action: 'skip', record: match.record };
  return { action: 'lookup', record: match.record };
}

/**
 * Settles every `lookup` of the batch with one pass over the sessions export (resolve.ts): found →
 * recorded in the ledger as `created` with its session id and skipped; provably absent → uploaded;
 * otherwise (or with `--no-resolve`) → `unknown`, not sent.
 */
export async function settleLookups(
  ctx: CliContext,
  client: RcsClient,
  ledger: Ledger,
  items: readonly Item[],
  decisions: Decision[],
  options: {
    resolve: boolean;
    rep: { email?: string; userId?: string };
    signal: AbortSignal;
    progress: Progress;
  },
): Promise<void> {
  const lookups = decisions.flatMap((d, i) => (d.action === 'lookup' ? [i] : []));
  if (lookups.length === 0) return;
  const unknownBecause = (reason: string) => {
    for (const i of lookups) {
      const d = decisions[i];
      if (d?.action === 'lookup') decisions[i] = { action: 'unknown', record: d.record, reason };
    }
  };
  if (!options.resolve) {
    unknownBecause('not looked up on the service (--no-resolve)');
    return;
  }
  const { progress } = options;
  progress.set(
    'lookup',
    `looking for ${lookups.length} upload${lookups.length === 1 ? '' : 's'} of unknown outcome on the service (one pass over the sessions export)`,
  );
  let resolutions: Awaited<ReturnType<typeof resolveUnknownUploads>>;
  try {
    resolutions = await resolveUnknownUploads(
      client,
      lookups.map((i) => ({
        transcript: (items[i] as Item).body.transcript,
        rep: options.rep,
        record: (decisions[i] as { record: LedgerRecord }).record,
      })),
      ledger.recordedSessionIds,
      options.signal,
    );
  } catch (error) {
    unknownBecause(`looking for it on the service failed: ${describeError(error).message}`);
    return;
  } finally {
    progress.done('lookup');
  }
  let legacy = 0;
  lookups.forEach((i, n) => {
    const d = decisions[i];
    const r = resolutions[n];
    const item = items[i];
    if (d?.action !== 'lookup' || !r || !item) return;
    if (d.record.service === undefined) legacy++;
    if (r.kind === 'absent') {
      decisions[i] = { action: 'upload' };
      if (ctx.verbose) {
        ctx.stderr.write(
          `[rcs] ${safeLine(item.loaded.file)}: the upload of ${d.record.at} (ledger line ${d.record.line}) is not on the service: uploading it\n`,
        );
      }
    } else if (r.kind === 'undetermined') {
      decisions[i] = { action: 'unknown', record: d.record, reason: r.reason };
    } else {
      try {
        const record = ledger.record({
          file: item.loaded.file,
          sha256: contentHash(item.body.transcript),
          rep: d.record.rep,
          status: 'created',
          sessionId: r.sessionId,
          // The upload happened when its line was written.
          at: d.record.at,
          note: `found on the service (created ${r.createdAt}) for the upload of ${d.record.at} whose outcome was unknown`,
        });
        decisions[i] = { action: 'skip', record, found: true };
      } catch (error) {
        decisions[i] = {
          action: 'unknown',
          record: d.record,
          reason: `found on the service as session ${r.sessionId}, but the ledger could not record it (${describeError(error).message})`,
        };
      }
    }
  });
  if (legacy > 0) {
    ctx.error(
      `note: ${legacy} ledger line${legacy === 1 ? '' : 's'} written by an earlier rcs (no service recorded) ${legacy === 1 ? 'was' : 'were'} looked up on this service; what was found is now recorded for it`,
    );
  }
}
