/**
 * The exact pager of one export (D7, D9), on the client's one pagination engine
 * (`runPages`: planning, the read-ahead window under the budget all nine exports share, page
 * order, de-duplication, the stop rules, the page shape, strict here). What an exact export adds
 * is here: an exact id set, and the decision on each anomaly. Any of these is an
 * ExportIntegrityError (or, with `allowDrift`, a warning):
 * - a page that echoes another `meta.page` than the one requested;
 * - `meta.total` that differs from page 1's (the list changed during the export);
 * - a page that repeats the previous page, or records already written (de-duplicated by `id`);
 * - `hasNext: false` before `meta.total` records, or `hasNext: true` after them (followed only
 *   while pages bring new records, at most to twice the announced pages);
 * - fewer or more records written than `meta.total` at the start and at the end.
 */
import type { Page, PageBody } from '@rcs/client';
import { type Limiter, runPages } from '@rcs/client/internal';
import { IdSet } from './changes/id-set.js';
import { ExportError } from './errors.js';
import type { ApiRecord } from './formats/encoders.js';

/** One page as the export reads it: the client's page of records with ids. */
export type ExportPage = Page<ApiRecord>;

/**
 * Reads one page's body, parsed by the pager when its turn comes (pages read ahead wait
 * as bytes); the client's `exports.<name>.listBody()` behind it does the retries.
 */
export type PageLister = (
  page: number,
  limit: number,
  signal: AbortSignal,
) => Promise<PageBody<unknown>>;

export type { Limiter } from '@rcs/client/internal';

interface PageInfo {
  page: number;
  total: number;
  /** Records received on this page, before de-duplication. */
  received: number;
}

export interface PagerOptions {
  resource: string;
  list: PageLister;
  limiter: Limiter;
  /** Pages of this export requested and not yet written, at most (asked again as it goes). */
  window: number | (() => number);
  /** Records per page asked for (1 to 100, D7). */
  limit: number;
  signal: AbortSignal;
  allowDrift: boolean;
  /** Writes one page's new records; called in page order, awaited before the next page. */
  onPage(records: ApiRecord[], info: PageInfo): Promise<void>;
  /** Every page this export plans is requested: the next export may start (run.ts). */
  onPlanRequested?: (() => void) | undefined;
}

export interface PagerResult {
  count: number;
  /** `meta.total` of page 1. */
  total: number;
  /** `meta.total` of the last page read. */
  totalAtEnd: number;
  pages: number;
  duplicates: number;
  /** Exactness problems accepted under `allowDrift` (empty otherwise: they throw). */
  warnings: string[];
}

/** The export was read but is not provably exact (D9). Exit 1 unless `--allow-drift`. */
export class ExportIntegrityError extends ExportError {
  override name = 'ExportIntegrityError';
  override readonly resource: string;
  constructor(resource: string, message: string) {
    super(`${resource}: ${message}`);
    this.resource = resource;
  }
}

/** Warnings kept per export under `allowDrift`; the rest are counted. */
const MAX_WARNINGS = 20;

/**
 * One export through the client's one pagination engine (runPages): this module keeps only what
 * an exact export adds: an exact id set (8 bytes per id), and the choice between failing and
 * warning on each anomaly.
 */
export async function pageThrough(options: PagerOptions): Promise<PagerResult> {
  const { resource, allowDrift } = options;
  const warnings: string[] = [];
  let suppressed = 0;
  // Sized by page 1's total, which the engine tells it before any id is added.
  let ids = new IdSet();
  const result = await runPages<ApiRecord, PageBody<unknown>>({
    read: (page, limit, signal) => options.list(page, limit, signal),
    limit: options.limit,
    window: options.window,
    limiter: options.limiter,
    signal: options.signal,
    ids: {
      add: (id) => ids.add(id),
      // Stryker disable next-line BlockStatement: a set made for page 1's total only grows less often than the default one; both hold the same ids
      expect: (total) => {
        ids = new IdSet(total);
      },
    },
    // The client's one page-shape check, strict: every meta field and an id on every record;
    // a page of another shape is not an export to write.
    parse: (body) => body.json(),
    shape: 'strict',
    shapeError: (message) => new ExportIntegrityError(resource, message),
    onAnomaly: (anomaly) => {
      if (!allowDrift) throw new ExportIntegrityError(resource, anomaly.message);
      // A badly drifting list can warn on every page: keep the manifest readable.
      if (warnings.length < MAX_WARNINGS) warnings.push(anomaly.message);
      else suppressed++;
    },
    onPage: (fresh, info) =>
      options.onPage(fresh, { page: info.page, total: info.meta.total, received: info.received }),
    onPlanRequested: options.onPlanRequested,
  });
  if (suppressed > 0) warnings.push(`… and ${suppressed} more warning(s) like these`);
  return {
    count: result.count,
    total: result.total,
    totalAtEnd: result.totalAtEnd,
    pages: result.pages,
    duplicates: result.duplicates,
    warnings,
  };
}
