/**
 * One export directory, one service. A directory's files and change state describe one
 * service's data: a run against another service (or the demo's mock, or from it) would mix two
 * organizations' records under one manifest, and a loader could not tell (a demo's `teams.jsonl`
 * in place of the real one). The manifest records the service and whether the data is a demo;
 * a run for another one is refused before any request, unless the caller forces it.
 */
import { join } from 'node:path';
import { withoutTrailingSlashes } from '@rcs/client/internal';
import { MAX_MANIFEST_BYTES } from '../changes/bases.js';
import { usageError } from '../errors.js';
import { MANIFEST_FILE } from './manifest.js';
import { readSmallFile } from './safe-open.js';

/**
 * `https://API.example.com:443/base/?x=1` → `https://api.example.com/base`: origin and path, one
 * spelling per service; never credentials (a URL's `user:password@`) or a query.
 */
export function serviceOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
}

/** The service a run writes for: its base URL (origin and path), and whether it is the demo. */
interface ServiceOfRun {
  service: string | undefined;
  demo: boolean;
}

/** What the directory's manifest says of its data, or undefined when it says nothing. */
async function recordedService(dir: string): Promise<ServiceOfRun | undefined> {
  let parsed: unknown;
  try {
    // Read as the run reads it (safe-open.ts): never through a link planted in its place (its
    // target's bytes are not this directory's manifest), never more than a manifest's size.
    const bytes = await readSmallFile(join(dir, MANIFEST_FILE), MAX_MANIFEST_BYTES);
    // Stryker disable next-line ConditionalExpression: without bytes, .length throws into the catch: undefined too
    if (bytes === undefined || bytes.length > MAX_MANIFEST_BYTES) return undefined;
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    // No manifest, a link, or one that cannot be read: it names no service (how a damaged
    // manifest is treated is the run's own business, not this check's; the run replaces a link
    // by a rename, never writing through it).
  }
  const { service, demo } = Object(parsed) as { service?: unknown; demo?: unknown };
  // A manifest of an earlier rcs (or JSON that is no object) names neither: nothing to compare.
  if (typeof service !== 'string' && demo !== true) return undefined;
  // Demo data is demo data, whatever its port (same()); any other manifest names its service.
  return demo === true ? { service: undefined, demo } : { service: service as string, demo: false };
}

function same(recorded: ServiceOfRun, run: ServiceOfRun): boolean {
  // Every demo runs its own mock on a port of the moment: demo data is demo data.
  if (recorded.demo || run.demo) return recorded.demo === run.demo;
  // A run whose client names no base URL cannot be told apart from any (recorded, one is named).
  return run.service === undefined || recorded.service === run.service;
}

function describe(s: ServiceOfRun): string {
  if (s.demo) return "the demo's data (rcs demo)";
  return s.service === undefined ? 'an export of an unnamed service' : `an export of ${s.service}`;
}

/**
 * Refuses (a usage error, before any request) a run into `dir` when its manifest names another
 * service than this run's, unless `force`. Called under the directory's lock.
 */
export async function assertSameService(
  dir: string,
  run: ServiceOfRun,
  force: boolean,
): Promise<void> {
  if (force) return;
  const recorded = await recordedService(dir);
  if (recorded === undefined || same(recorded, run)) return;
  const fix = run.demo
    ? 'the demo writes into a directory of its own: pick another with `out`'
    : 'export into another directory with `out`, or pass `force` to replace its files';
  // The options between backticks (errors.ts): `rcs` shows its flags there.
  throw usageError(
    `\`out\` ${dir} holds ${describe(recorded)}, not ${describe(run)}: one directory holds one service's data (its ${MANIFEST_FILE} records which), so nothing was written; ${fix}`,
  );
}
