import pLimitImport from 'p-limit';
import { RcsError } from './errors.js';
import { defaultExport } from './interop.js';
import { checkNumber } from './number-option.js';
import { PageBody } from './page-body.js';
import { type Page, type PageMeta, runPages } from './page-engine.js';
import { type ClientTracing, errorType, type TraceAttributes, type TracedSpan } from './tracing.js';

const pLimit = defaultExport(pLimitImport);

/**
 * `exports.<name>.all()`: the one pagination engine (page-engine.ts: planning, the read-ahead
 * window, de-duplication by `id`, the stop rules) as an async iterable of records, with at most
 * `concurrency` requests in flight and as many pages held, however large the export is.
 *
 * D9: the order of records is not guaranteed and offset pagination over a changing list can
 * repeat or skip records, so records are de-duplicated by `id` (a bounded window of recent ids)
 * and `stats` compares what was collected with `meta.total`. A page whose `meta.page` is another
 * page than the one requested is an error naming both; every other contradiction is counted, not
 * fatal (`rcs export` makes them fatal or warnings).
 */

export type { Page, PageMeta, PageReader } from './page-engine.js';

/**
 * A page reader that may be told the span its request belongs to. It may give the page's body
 * unparsed (PageBody): pages read ahead then wait as bytes, parsed in their turn.
 */
type TracedPageReader<T> = (
  page: number,
  limit: number,
  signal: AbortSignal,
  parent?: TracedSpan,
) => Promise<Page<T> | PageBody<Page<T>>>;

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

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_EXPORT_LIMIT = 100;
const MAX_EXPORT_LIMIT = 100;
export const DEFAULT_DEDUPE_WINDOW = 10_000;

export function assertLimit(limit: number): void {
  checkNumber('limit', limit, { min: 1, max: MAX_EXPORT_LIMIT });
}

/** Pages start at 1. */
export function assertPage(page: number): void {
  checkNumber('page', page, { min: 1 });
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

/** The span of one whole pagination: its requests are its children. */
export interface PaginationTrace {
  tracing: ClientTracing;
  name: string;
  attributes: TraceAttributes;
}

export function paginate<T extends { id: string }>(
  readPage: TracedPageReader<T>,
  options: PaginateOptions = {},
  trace?: PaginationTrace,
): ExportIterable<T> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const limit = options.limit ?? DEFAULT_EXPORT_LIMIT;
  // Bad options fail at the call, before any request, naming the option.
  checkNumber('concurrency', concurrency, { min: 1 });
  assertLimit(limit);
  const window = options.dedupeWindow ?? DEFAULT_DEDUPE_WINDOW;
  checkNumber('dedupeWindow', window, { min: 0, max: Number.POSITIVE_INFINITY });

  let stats = emptyStats();

  /**
   * The one engine (page-engine.ts) pushes pages; this generator pulls records. A page is handed
   * over only when the consumer has taken the previous one, so the engine's window bounds memory.
   */
  async function* run(): AsyncGenerator<T, void, undefined> {
    stats = emptyStats();
    const own = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
    // The next page (null: the end), and the consumer's word that it took the last one.
    let next = deferred<T[] | null>();
    let taken = deferred<void>();
    const span = trace?.tracing.startSpan(trace.name, {
      kind: 'internal',
      attributes: { ...trace.attributes, 'rcs.page.limit': limit, 'rcs.concurrency': concurrency },
    });
    const engine = runPages<T, Page<T> | PageBody<Page<T>>>({
      read: span ? (n, size, s) => readPage(n, size, s, span) : readPage,
      limit,
      window: concurrency,
      limiter: pLimit(concurrency),
      signal,
      ids: new RecentIds(window),
      parse: (read) => (read instanceof PageBody ? read.json() : read),
      shapeError: (message) => new RcsError(message),
      onAnomaly: (a) => {
        // The service did not serve the page asked for: records would repeat or go missing.
        if (a.kind === 'wrong-page') {
          throw new RcsError(
            `page ${a.page} of the export was answered as page ${a.answeredAs} (meta.page): the ` +
              'service did not serve the page requested, so the export would repeat or skip records',
          );
        }
        // Everything else is D9's drift: counted in stats, not fatal for all().
      },
      onPage: (fresh, info) => {
        stats.pages++;
        if (stats.total === undefined) stats.total = info.meta.total;
        stats.totalAtEnd = info.meta.total;
        stats.duplicates += info.received - fresh.length;
        options.onPage?.({ page: info.page, records: info.received, meta: info.meta });
        taken = deferred<void>();
        const give = next;
        next = deferred<T[] | null>();
        give.resolve(fresh);
        return taken.promise;
      },
    })
      .then((result) => {
        stats.maxPagesHeld = result.maxPagesHeld;
      })
      .finally(() => next.resolve(null));
    engine.catch(() => {});
    try {
      for (;;) {
        const page = await next.promise;
        if (page === null) break;
        for (const record of page) {
          stats.seen++;
          stats.missing = Math.max(0, (stats.totalAtEnd ?? 0) - stats.seen);
          yield record;
        }
        stats.missing = Math.max(0, (stats.totalAtEnd ?? 0) - stats.seen);
        taken.resolve();
      }
      await engine;
    } catch (error) {
      span?.fail(errorType(error), error instanceof Error ? error.message : undefined);
      throw error;
    } finally {
      // Stops pages still in flight when the consumer breaks early, fails or finishes.
      own.abort();
      taken.resolve();
      span?.setAttributes({
        'rcs.export.records': stats.seen,
        'rcs.export.pages': stats.pages,
        'rcs.export.duplicates': stats.duplicates,
        'rcs.export.total': stats.totalAtEnd,
      });
      span?.end();
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

/** A promise with its resolve at hand (Promise.withResolvers, which Node 20 lacks). */
function deferred<V>(): { promise: Promise<V>; resolve: (value: V) => void } {
  let resolve!: (value: V) => void;
  const promise = new Promise<V>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The last `capacity` distinct ids, oldest forgotten first (a ring over a Set). */
class RecentIds {
  private readonly set = new Set<string>();
  // Stryker disable next-line ArrayDeclaration: a stray id in the first slot would only be deleted from the set, where it never was
  private readonly ring: string[] = [];
  private next = 0;
  constructor(private readonly capacity: number) {}

  /** Adds `id`; false when it is already remembered (a duplicate). */
  add(id: string): boolean {
    if (this.set.has(id)) return false;
    if (this.capacity === 0) return true;
    // Stryker disable next-line ConditionalExpression,BlockStatement: the ring below would do the same, one slot per id
    if (this.capacity === Number.POSITIVE_INFINITY) {
      this.set.add(id);
      return true;
    }
    // The slot's previous id (none while the ring fills up) is forgotten.
    const forgotten = this.ring[this.next];
    // Stryker disable next-line ConditionalExpression: an empty slot's undefined is in no set, so deleting it would do nothing
    if (forgotten !== undefined) this.set.delete(forgotten);
    this.ring[this.next] = id;
    if (++this.next === this.capacity) this.next = 0;
    this.set.add(id);
    return true;
  }
}
