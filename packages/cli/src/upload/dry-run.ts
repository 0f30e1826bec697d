import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { safeLine } from '../output/sanitize.js';
import type { Decision } from './decision.js';
import type { LedgerRecord } from './ledger.js';
import type { Item } from './outcome.js';
import { matchedRecord } from './task.js';

/** The ledger line behind a decision, as `--dry-run --json` shows it. */
function ledgerLine(record: LedgerRecord) {
  return {
    line: record.line,
    file: record.file,
    service: record.service ?? null,
    status: record.status,
    ...(record.sessionId !== undefined ? { sessionId: record.sessionId } : {}),
    at: record.at,
  };
}

/**
 * `rcs upload --dry-run`: what each file would come to, and which ledger line decided it (D28);
 * nothing is sent and nothing is written. An unknown outcome would be looked up on the service
 * first (one pass over the sessions export), which a dry run does not do.
 */
export function reportDryRun(
  ctx: CliContext,
  items: readonly Item[],
  decisions: Decision[],
): number {
  items.forEach((item, i) => {
    const d = decisions[i] ?? { action: 'upload' };
    const file = item.loaded.file;
    if (ctx.json) {
      const line =
        d.action === 'duplicate'
          ? { file, dryRun: true, action: 'skip', duplicateOf: d.of }
          : d.action === 'upload'
            ? { file, dryRun: true, action: 'upload' }
            : {
                file,
                dryRun: true,
                action: d.action === 'skip' ? 'skip' : 'lookup',
                ledger: ledgerLine(d.record),
              };
      ctx.stdout.write(`${JSON.stringify(line)}\n`);
      return;
    }
    const name = safeLine(file);
    if (d.action === 'duplicate') {
      ctx.stdout.write(`would skip    ${name}  (same text as ${safeLine(d.of)})\n`);
    } else if (d.action === 'upload') {
      ctx.stdout.write(`would upload  ${name}\n`);
    } else if (d.action === 'skip') {
      ctx.stdout.write(
        `would skip    ${name}  ${safeLine(d.record.sessionId)}  (${matchedRecord(d.record)})\n`,
      );
    } else {
      const why =
        d.record.service === undefined
          ? 'its ledger line predates service keys'
          : `its outcome is unknown since ${safeLine(d.record.at)}`;
      ctx.stdout.write(
        `would look up ${name}  (${why}, ledger line ${d.record.line}: the sessions export is read first; found: skipped, absent: uploaded)\n`,
      );
    }
  });
  ctx.log(`dry run: nothing was sent and the ledger was not written`);
  return EXIT.ok;
}
