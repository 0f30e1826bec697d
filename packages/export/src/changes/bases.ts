/**
 * Which run each export of a `--changes` run compares with (its base), and what stays committed
 * (FORMATS.md "The change contract", D27):
 *
 * - `--ack RUN`: RUN, the run the consumer applied last (it records the run id in the same
 *   transaction as the load), so a load that failed or never happened is never skipped.
 * - `--full`: none, every record an insert.
 * - otherwise: the snapshot that the directory's manifest names as committed for that export
 *   (the last successful run); none on the first run.
 *
 * The manifest is the only pointer to the committed state: a snapshot it does not name is the
 * leftover of a run that did not commit and is never compared with.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, type ManifestChanges } from '../files/manifest.js';
import { ChangesStateError, legacyStateFileOf, type StateFilters } from './state-file.js';

/** The change part of the directory's current manifest, if it has one. */
export async function committedChanges(dir: string): Promise<ManifestChanges | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const changes = (JSON.parse(text) as { changes?: Partial<ManifestChanges> }).changes;
    if (!changes || typeof changes.states !== 'object' || changes.states === null) return undefined;
    return {
      runId: String(changes.runId),
      acknowledged: typeof changes.acknowledged === 'string' ? changes.acknowledged : null,
      full: Boolean(changes.full),
      states: changes.states,
    };
  } catch {
    // A manifest that is not JSON names no state: every record an insert (base null says so).
    return undefined;
  }
}

export interface ChangeRequest {
  ack: string | undefined;
  full: boolean;
}

/** The base of one export, or undefined for none. */
export async function baseOf(
  dir: string,
  resource: string,
  request: ChangeRequest,
  committed: ManifestChanges | undefined,
): Promise<string | undefined> {
  if (request.full) return undefined;
  if (request.ack !== undefined) return request.ack;
  const named = committed?.states[resource];
  if (named !== undefined) return named;
  const legacy = join(dir, legacyStateFileOf(resource));
  const hasLegacy = await access(legacy).then(
    () => true,
    () => false,
  );
  if (hasLegacy) {
    throw new ChangesStateError(
      `${legacy} was written by an earlier rcs and cannot prove its integrity; run with \`full\` to start over (every record an insert; reload the tables), then delete it`,
    );
  }
  return undefined;
}

/** The filters a listing of `resource` was taken with (D8: the archive filter, tracks only). */
export function filtersOf(
  resource: string,
  archived: 'include' | 'only' | undefined,
): StateFilters {
  // The service's default is `include`: no flag and `--archived include` list the same records.
  return resource === 'tracks' ? { archived: archived ?? 'include' } : {};
}

/**
 * The snapshots of one export to keep after this run commits: its own, the one it compared
 * with, and the acknowledged run's (a consumer that has not recorded this run yet names it
 * again with `--ack`). Every other snapshot of the export is pruned.
 */
export function snapshotsToKeep(
  runId: string,
  base: string | undefined,
  acknowledged: string | null,
): Set<string> {
  const keep = new Set([runId]);
  if (base !== undefined) keep.add(base);
  if (acknowledged !== null) keep.add(acknowledged);
  return keep;
}
