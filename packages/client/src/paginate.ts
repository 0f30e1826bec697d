import pLimitImport from 'p-limit';
import { RcsError } from './errors.js';
import { defaultExport } from './interop.js';

const pLimit = defaultExport(pLimitImport);

/**
 * The auto-pagination engine behind `exports.<name>.all()`, independent of HTTP: it is given a
 * function that reads one page.
 *
 * Reads page 1 (to learn `meta.total`), then the remaining pages with at most `concurrency`
 * requests in flight, and yields records strictly in page order. A page is requested only when
 * fewer than `concurrency` pages are in flight or waiting to be consumed, so memory is bounded by
 * `concurrency` pages (plus the one being yielded), however large the export is.
 *
 * D9: the order of records is not guaranteed and offset pagination over a changing list can
 * repeat or skip records, so records are de-duplicated by `id` and `stats` compares what was
 * collected with `meta.total`.
 *
 * When to stop, so that a service that ignores `page` or contradicts itself cannot make the run
 * endless:
 * - a page whose `meta.page` is a number other than the page requested is an error naming both:
 *   the service did not serve the page asked for, so the records would be repeats or gaps;
 * - the plan is ceil(largest `meta.total` seen / page size) pages: a total that grows mid-export
 *   is followed; one that shrinks (`hasNext: false`, or an empty page) ends the run early;
 * - past the plan, `hasNext: true` contradicts `total`. The next page is then read (one at a
 *   time) only if the page just read brought an id that is neither remembered by the de-duplication
 *   window nor on the page before it. A service that always answers the same page with
 *   `hasNext: true` therefore stops right after the plan, its repeats counted in `duplicates`.
 */

export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  hasNext: boolean;
}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/** What an auto-paginated export saw; live while iterating, final afterwards (D9). */
export interface ExportStats {
  /** `meta.total` of page 1: what the export was expected to hold. */
  total: number | undefined;
  /** `meta.total` of the last page read: differs from `total` when the list changed meanwhile. */
  totalAtEnd: number | undefined;
  /** Distinct records yielded. */
  seen: number;
  /** Records skipped because their `id` had already been yielded. */
  duplicates: number;
  /** Pages read. */
  pages: number;
  /** max(0, totalAtEnd − seen): records the service counted but this run did not receive. */
  missing: number;
  /** The most pages ever in flight or waiting to be consumed; never above `concurrency`. */
  maxPagesHeld: number;
}

export interface PageInfo {
  page: number;
  records: number;
  meta: PageMeta;
}

export interface PaginateOptions {
  /** Pages requested at the same time (and buffered ahead). Default 4. */
  concurrency?: number | undefined;
  /** Records per page, 1 to 100 (D7). Default 100: fewest requests. */
  limit?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * How many of the most recent ids are remembered to drop duplicates (D9). Default 10,000:
   * offset pagination repeats a record near where it was first seen (shifted by the records
   * inserted meanwhile), so a bounded window catches the repeats while keeping memory independent
   * of the export's size. `Infinity` remembers every id (memory grows ~70 bytes per record).
   */
  dedupeWindow?: number | undefined;
  /** Called once per page, in page order, before its records are yielded. */
  onPage?: ((info: PageInfo) => void) | undefined;
}

/** An async iterable of records that also reports what it saw. */
export interface ExportIterable<T> extends AsyncIterable<T> {
  readonly stats: ExportStats;
  /** Collects every record into an array (convenient for small exports). */
  toArray(): Promise<T[]>;
}

export type PageReader<T> = (page: number, limit: number, signal: AbortSignal) => Promise<Page<T>>;

export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_EXPORT_LIMIT = 100;
export const MAX_EXPORT_LIMIT = 100;
export const DEFAULT_DEDUPE_WINDOW = 10_000;

export function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EXPORT_LIMIT) {
    throw new RcsError(`limit must be an integer from 1 to ${MAX_EXPORT_LIMIT} (D7), got ${limit}`);
  }
}

export function assertPage(page: number): void {
  if (!Number.isInteger(page) || page < 1) {
    throw new RcsError(`page must be an integer of at least 1 (pages start at 1), got ${page}`);
  }
}

function emptyStats(): ExportStats {
  return {
    total: undefined,
    totalAtEnd: undefined,
    seen: 0,
    duplicates: 0,
    pages: 0,
    missing: 0,
    maxPagesHeld: 0,
  };
}

export function paginate<T extends { id: string }>(
  readPage: PageReader<T>,
  options: PaginateOptions = {},
): ExportIterable<T> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const limit = options.limit ?? DEFAULT_EXPORT_LIMIT;
  // Bad options fail at the call, before any request, naming the option.
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RcsError(`concurrency must be an integer of at least 1, got ${concurrency}`);
  }
  assertLimit(limit);
  const window = options.dedupeWindow ?? DEFAULT_DEDUPE_WINDOW;
  if (!(window === Number.POSITIVE_INFINITY || (Number.isInteger(window) && window >= 0))) {
    throw new RcsError(`dedupeWindow must be an integer ≥ 0 or Infinity, got ${window}`);
  }

  let stats = emptyStats();

  async function* run(): AsyncGenerator<T, void, undefined> {
    stats = emptyStats();
    const own = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
    const limiter = pLimit(concurrency);
    /** Pages requested and not yet consumed: in flight or buffered. */
    const held = new Map<number, Promise<Page<T>>>();
    const ids = new RecentIds(window);
    let lastPage = 1;
    let nextToRequest = 2;
    /** The ids of the page read before the current one (a window-independent check of progress). */
    let previousIds: string[] = [];

    const fillWindow = () => {
      while (nextToRequest <= lastPage && held.size < concurrency) {
        const n = nextToRequest++;
        const pending = limiter(() => readPage(n, limit, signal));
        // Rejections are observed when the page is consumed; this avoids an unhandled one if the
        // run stops earlier.
        pending.catch(() => {});
        held.set(n, pending);
        stats.maxPagesHeld = Math.max(stats.maxPagesHeld, held.size);
      }
    };

    try {
      signal.throwIfAborted();
      let current = checkPage(await readPage(1, limit, signal), 1);
      stats.total = current.meta.total;
      // The service may clamp `limit`; its own answer says how many records a page holds.
      const pageSize = current.meta.limit > 0 ? current.meta.limit : limit;
      let largestTotal = current.meta.total;
      for (let n = 1; ; n++) {
        stats.pages++;
        stats.totalAtEnd = current.meta.total;
        largestTotal = Math.max(largestTotal, current.meta.total);
        // The list may have grown since page 1: the plan follows the largest total seen.
        const planned = Math.ceil(largestTotal / pageSize);
        if (current.data.length === 0 || !hasNext(current, n, pageSize)) {
          // Past the end (D7), or the list shrank: nothing further to read.
          lastPage = n;
        } else if (n < planned) {
          lastPage = Math.max(lastPage, planned);
        } else if (bringsNewIds(current.data, ids, previousIds)) {
          // `hasNext` says more than `total` does: believe it one page at a time, while it pays.
          lastPage = Math.max(lastPage, n + 1);
        }
        previousIds = current.data.map((record) => record.id);
        options.onPage?.({ page: n, records: current.data.length, meta: current.meta });
        // Request ahead before yielding, so the network works while the consumer does.
        fillWindow();
        for (const record of current.data) {
          if (!ids.add(record.id)) {
            stats.duplicates++;
            continue;
          }
          stats.seen++;
          stats.missing = Math.max(0, (stats.totalAtEnd ?? 0) - stats.seen);
          yield record;
        }
        stats.missing = Math.max(0, (stats.totalAtEnd ?? 0) - stats.seen);
        if (n >= lastPage) break;
        const next = held.get(n + 1);
        if (!next) break;
        held.delete(n + 1);
        current = checkPage(await next, n + 1);
      }
    } finally {
      // Stops pages still in flight when the consumer breaks early, fails or finishes.
      own.abort();
      held.clear();
    }
  }

  return {
    get stats() {
      return stats;
    },
    [Symbol.asyncIterator]: run,
    async toArray() {
      const out: T[] = [];
      for await (const record of run()) out.push(record);
      return out;
    },
  };
}

/**
 * Lenient but not blind: a page without `data` or `meta` cannot be paginated, and a page that
 * says it is another page (`meta.page`) is not the one asked for. A missing `meta.page` is
 * accepted.
 */
function checkPage<T>(page: Page<T>, n: number): Page<T> {
  const meta = page?.meta as Partial<PageMeta> | undefined;
  if (!page || !Array.isArray(page.data) || !meta || typeof meta.total !== 'number') {
    throw new RcsError(
      `page ${n} of the export is not { data: [...], meta: { total, page, limit, hasNext } }`,
    );
  }
  if (typeof meta.page === 'number' && meta.page !== n) {
    throw new RcsError(
      `page ${n} of the export was answered as page ${meta.page} (meta.page): the service did ` +
        'not serve the page requested, so the export would repeat or skip records',
    );
  }
  return page;
}

/** Whether a page holds an id that is neither remembered (D9 window) nor on the page before. */
function bringsNewIds(
  data: readonly { id: string }[],
  remembered: RecentIds,
  previousIds: readonly string[],
): boolean {
  const previous = new Set(previousIds);
  return data.some((record) => !remembered.has(record.id) && !previous.has(record.id));
}

/** `meta.hasNext` when the service sent it; otherwise what `total` implies. */
function hasNext(page: Page<unknown>, n: number, pageSize: number): boolean {
  const flag = (page.meta as Partial<PageMeta>).hasNext;
  return typeof flag === 'boolean' ? flag : n * pageSize < page.meta.total;
}

/** The last `capacity` distinct ids, oldest forgotten first (a ring over a Set). */
class RecentIds {
  private readonly set = new Set<string>();
  private readonly ring: string[] = [];
  private next = 0;
  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.set.has(id);
  }

  /** Adds `id`; false when it is already remembered (a duplicate). */
  add(id: string): boolean {
    if (this.set.has(id)) return false;
    if (this.capacity === 0) return true;
    if (this.capacity === Number.POSITIVE_INFINITY) {
      this.set.add(id);
      return true;
    }
    if (this.ring.length < this.capacity) this.ring.push(id);
    else {
      this.set.delete(this.ring[this.next]!);
      this.ring[this.next] = id;
      this.next = (this.next + 1) % this.capacity;
    }
    this.set.add(id);
    return true;
  }
}
