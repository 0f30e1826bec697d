/**
 * The exact pager of one export (issue 6, D7, D9).
 *
 * We do not use the client's `.all()`: the export must check every page, and all nine exports
 * share one concurrency budget. So this pager reads pages through `list()` under a limiter that
 * the caller shares between resources and pages, keeps at most `window` pages of this export
 * requested-but-not-written (memory stays flat however long the export is), and hands pages to
 * `onPage` strictly in page order as they arrive.
 *
 * Exactness: the list is read with offset pagination while it may change (D9), so every page is
 * checked, and any of these is an ExportIntegrityError (or, with `allowDrift`, a warning):
 * - a page that echoes another `meta.page` than the one requested;
 * - `meta.total` that differs from page 1's (the list changed during the export);
 * - a page that repeats the previous page, or records already written (de-duplicated by `id`);
 * - `hasNext: false` before `meta.total` records, or `hasNext: true` after them;
 * - fewer or more records written than `meta.total` at the start and at the end.
 */
import type { ApiRecord } from './encoders.js';
import { IdSet } from './id-set.js';

interface PageMeta {
  total: number;
  page: number;
  limit: number;
  hasNext: boolean;
}

export interface ExportPage {
  data: ApiRecord[];
  meta: PageMeta;
}

/** Reads one page; the client's `exports.<name>.list()` behind it does the retries. */
export type PageLister = (page: number, limit: number, signal: AbortSignal) => Promise<ExportPage>;

/** p-limit's shape: runs `fn` when a slot of the shared budget is free. */
export type Limiter = <T>(fn: () => Promise<T>) => Promise<T>;

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
  /** Pages of this export requested and not yet written, at most. */
  window: number;
  /** Records per page asked for (1 to 100, D7). */
  limit: number;
  signal: AbortSignal;
  allowDrift: boolean;
  /** Writes one page's new records; called in page order, awaited before the next page. */
  onPage(records: ApiRecord[], info: PageInfo): Promise<void>;
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
export class ExportIntegrityError extends Error {
  override name = 'ExportIntegrityError';
  readonly resource: string;
  constructor(resource: string, message: string) {
    super(`${resource}: ${message}`);
    this.resource = resource;
  }
}

/** A page the pager cannot read at all (not `{ data, meta }`, a record without id). */
function checkShape(resource: string, page: unknown, n: number): ExportPage {
  const p = page as Partial<ExportPage> | null | undefined;
  const meta = p?.meta as Partial<PageMeta> | undefined;
  if (
    !p ||
    !Array.isArray(p.data) ||
    !meta ||
    typeof meta.total !== 'number' ||
    typeof meta.page !== 'number' ||
    typeof meta.limit !== 'number' ||
    typeof meta.hasNext !== 'boolean'
  ) {
    throw new ExportIntegrityError(
      resource,
      `page ${n} is not { data: [...], meta: { total, page, limit, hasNext } }`,
    );
  }
  for (const record of p.data) {
    if (!record || typeof record !== 'object' || typeof record.id !== 'string') {
      throw new ExportIntegrityError(resource, `page ${n} holds a record without a string id`);
    }
  }
  return p as ExportPage;
}

function sameIds(a: readonly ApiRecord[], b: readonly string[]): boolean {
  return a.length > 0 && a.length === b.length && a.every((r, i) => r.id === b[i]);
}

/** Pages read past the announced ones, at least, before a growing list stops being followed. */
const MIN_EXTRA_PAGES = 10;

/** Warnings kept per export under `allowDrift`; the rest are counted. */
const MAX_WARNINGS = 20;

export async function pageThrough(options: PagerOptions): Promise<PagerResult> {
  const { resource, limit, allowDrift } = options;
  const own = new AbortController();
  const signal = AbortSignal.any([options.signal, own.signal]);
  const held = new Map<number, Promise<ExportPage>>();
  const warnings: string[] = [];
  let suppressed = 0;
  const problem = (message: string) => {
    if (!allowDrift) throw new ExportIntegrityError(resource, message);
    // A badly drifting list can warn on every page: keep the manifest readable.
    if (warnings.length < MAX_WARNINGS) warnings.push(message);
    else suppressed++;
  };

  const request = (n: number) => {
    const pending = options.limiter(() => {
      // A page queued behind the budget is not sent once the run is over or failed.
      signal.throwIfAborted();
      return options.list(n, limit, signal);
    });
    // Observed when consumed; this avoids an unhandled rejection if the run stops earlier.
    pending.catch(() => {});
    held.set(n, pending);
  };

  let planned = 1;
  let nextToRequest = 2;
  const fill = () => {
    while (nextToRequest <= planned && held.size < options.window) request(nextToRequest++);
  };

  try {
    request(1);
    let ids = new IdSet();
    let total = 0;
    let totalAtEnd = 0;
    let pageSize = limit;
    let count = 0;
    let duplicates = 0;
    let totalChangeReported = false;
    let previousIds: string[] = [];
    let pages = 0;
    let announced = 1;

    for (let n = 1; ; n++) {
      const pending = held.get(n);
      if (!pending) break;
      held.delete(n);
      const page = checkShape(resource, await pending, n);
      const { meta, data } = page;
      pages++;
      if (n === 1) {
        total = meta.total;
        // The service's own answer says how many records a page holds (it may clamp `limit`).
        pageSize = meta.limit >= 1 ? meta.limit : limit;
        planned = Math.max(1, Math.ceil(total / pageSize));
        announced = planned;
        ids = new IdSet(total);
      }
      totalAtEnd = meta.total;
      // Ask for the following pages before writing this one: the network works meanwhile.
      fill();

      if (meta.page !== n) problem(`page ${n} came back as meta.page ${meta.page}`);
      if (meta.total !== total && !totalChangeReported) {
        totalChangeReported = true;
        problem(
          `meta.total changed from ${total} (page 1) to ${meta.total} (page ${n}): the list changed during the export`,
        );
      }
      if (data.length > pageSize) {
        problem(`page ${n} holds ${data.length} records, more than its limit of ${pageSize}`);
      }
      if (n > 1 && sameIds(data, previousIds)) problem(`page ${n} repeats page ${n - 1}`);

      const fresh: ApiRecord[] = [];
      let repeated = 0;
      for (const record of data) {
        if (ids.add(record.id)) fresh.push(record);
        else repeated++;
      }
      if (repeated > 0) {
        duplicates += repeated;
        problem(
          `page ${n} repeats ${repeated} record(s) already exported (de-duplicated by id); the list shifted during the export`,
        );
      }
      previousIds = data.map((r) => r.id);
      count += fresh.length;
      await options.onPage(fresh, { page: n, total, received: data.length });

      if (data.length === 0 && meta.hasNext) {
        problem(`page ${n} is empty but says hasNext: true`);
        break;
      }
      // Past the pages meta.total announced, drift is followed only while it brings records
      // (issue 11): a service that keeps saying hasNext: true with nothing new, or that grows
      // without end, is not followed forever (--allow-drift bounds counts, not requests).
      if (meta.hasNext && n > announced) {
        if (fresh.length === 0) {
          problem(`page ${n} brought no new record but says hasNext: true; stopped reading there`);
          break;
        }
        if (n >= announced + Math.max(MIN_EXTRA_PAGES, announced)) {
          problem(
            `the list kept growing past twice the ${announced} page(s) meta.total announced; stopped reading at page ${n}`,
          );
          break;
        }
      }
      if (!meta.hasNext) {
        if (n < planned) {
          problem(
            `page ${n} says hasNext: false after ${count} of ${total} records (${planned} pages expected)`,
          );
        }
        break;
      }
      if (n >= planned) {
        problem(`page ${n} says hasNext: true, but meta.total ${total} means ${planned} page(s)`);
        // Accepted drift: the list grew, so keep reading until the service says it has ended.
        planned = n + 1;
        fill();
      }
    }

    if (count !== total || count !== totalAtEnd) {
      problem(
        `exported ${count} records, but meta.total was ${total} at the start and ${totalAtEnd} at the end`,
      );
    }
    if (suppressed > 0) warnings.push(`… and ${suppressed} more warning(s) like these`);
    return { count, total, totalAtEnd, pages, duplicates, warnings };
  } finally {
    // Stops this export's pages still in flight or queued (an early end or a failure).
    own.abort();
    held.clear();
  }
}
