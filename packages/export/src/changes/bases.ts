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
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, type ManifestChanges } from '../files/manifest.js';
import { readSmallFile } from '../files/safe-open.js';
import { isRunId } from './run-id.js';
import { ChangesStateError, FULL_FIX, legacyStateFileOf, type StateFilters } from './state-file.js';

/** A manifest is a few kilobytes; one larger than this is not one rcs wrote. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** `.<resource>.changes-state.<runId>`: the change snapshots of any export in `dir`. */
async function snapshotsIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((name) => {
      const match = /^\.[a-z-]+\.changes-state\.(.+)$/.exec(name);
      return match !== null && isRunId(match[1]!);
    })
    .sort();
}

/** The change part of a manifest's JSON, or why it is not one (a reason, as text). */
function changesOf(text: string): ManifestChanges | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'it is not JSON: cut short or edited';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return 'it is not a manifest';
  }
  const changes = (parsed as { changes?: unknown }).changes;
  if (changes === undefined) {
    return 'it was written by a run without `changes`, and names no change state';
  }
  if (typeof changes !== 'object' || changes === null) return 'its "changes" are not an object';
  const c = changes as Partial<Record<keyof ManifestChanges, unknown>>;
  const states = c.states as Record<string, unknown> | null | undefined;
  if (
    typeof c.runId !== 'string' ||
    !isRunId(c.runId) ||
    !(c.acknowledged === null || (typeof c.acknowledged === 'string' && isRunId(c.acknowledged))) ||
    typeof states !== 'object' ||
    states === null ||
    Array.isArray(states) ||
    !Object.values(states).every((id) => typeof id === 'string' && isRunId(id))
  ) {
    return 'its "changes" are not what rcs writes';
  }
  return {
    runId: c.runId,
    acknowledged: c.acknowledged,
    full: c.full === true,
    states: states as Record<string, string>,
  };
}

/**
 * The change part of the directory's current manifest, or undefined when there is no earlier
 * run (no manifest, no snapshot): the first run, every record an insert.
 *
 * The manifest is the only pointer to the committed change state. Missing or damaged while
 * change snapshots are here, it cannot say which run was committed: comparing with nothing
 * would report every record as an insert and prune the snapshot a consumer's `--ack` names, so
 * the run fails, naming `--full` (which starts over knowingly), and touches nothing.
 * With `full` the manifest is not read at all.
 */
export async function committedChanges(
  dir: string,
  request: { full: boolean },
): Promise<ManifestChanges | undefined> {
  if (request.full) return undefined;
  const path = join(dir, MANIFEST_FILE);
  // Never through a link (safe-open.ts): a planted manifest.json must not name our base.
  const bytes = await readSmallFile(path, MAX_MANIFEST_BYTES);
  const changes =
    bytes === undefined
      ? undefined
      : bytes.length > MAX_MANIFEST_BYTES
        ? 'it is larger than any manifest rcs writes'
        : changesOf(bytes.toString('utf8'));
  if (typeof changes === 'object') return changes;
  const snapshots = await snapshotsIn(dir);
  if (snapshots.length === 0) return undefined;
  const shown = snapshots.slice(0, 3).join(', ') + (snapshots.length > 3 ? ', …' : '');
  throw new ChangesStateError(
    `${path} ${changes === undefined ? 'is missing' : `cannot be used (${changes})`}, but ${dir} holds change snapshots of earlier runs (${shown}): without it, which run was committed last is unknown, and comparing with nothing would report every record as an insert and remove the snapshot your next \`ack\` names. Nothing was changed; ${FULL_FIX}`,
  );
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
