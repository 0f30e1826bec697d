/**
 * The one pagination engine: plans pages, reads ahead in a bounded window under
 * a concurrency budget, hands pages over strictly in page order, de-duplicates records by `id`
 * (D9) with an id set the caller owns, and reports every way a page contradicts the list as an
 * anomaly the caller decides about. `exports.<name>.all()` (paginate.ts) ignores what it can live
 * with; `rcs export` (strict, or `--allow-drift`) turns each into an error or a warning.
 *
 * When to stop, so that a service that ignores `page` or contradicts itself cannot make a run
 * endless:
 * - the plan is ceil(largest `meta.total` seen / page size) pages: a total that grows is followed;
 *   one that shrinks (`hasNext: false`, or an empty page) ends the run early;
 * - past the plan, `hasNext: true` contradicts `total`: the next page is read (one at a time) only
 *   while pages bring an id that is neither in the caller's set nor on the page before, and at most
 *   to twice the announced pages (at least 10 more).
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

/**
 * Reads one page. What it gives (`R`) is turned into a page by `checkShape` when the page's turn
 * comes: a reader may give the body unparsed (`PageBody`), so that pages read ahead are held as
 * bytes, not as records.
 */
export type PageReader<T, R = Page<T>> = (
  page: number,
  limit: number,
  signal: AbortSignal,
) => Promise<R>;

/** p-limit's shape: runs `fn` when a slot of the (possibly shared) budget is free. @internal */
export type Limiter = <R>(fn: () => Promise<R>) => Promise<R>;

/** The ids already handed over; `add` answers false for one seen before (a duplicate). @internal */
export interface IdTracker {
  add(id: string): boolean;
  /** Told page 1's `meta.total` before any id is added (a set may size itself by it). */
  expect?(total: number): void;
}

/** A way a page contradicts the list (D9), with a message that names the page. @internal */
export type Anomaly =
  | { kind: 'wrong-page'; page: number; answeredAs: number; message: string }
  | { kind: 'total-changed'; page: number; from: number; to: number; message: string }
  | { kind: 'oversized-page'; page: number; message: string }
  | { kind: 'repeated-page'; page: number; message: string }
  | { kind: 'duplicates'; page: number; count: number; message: string }
  | { kind: 'empty-with-next'; page: number; message: string }
  | { kind: 'ended-early'; page: number; message: string }
  | { kind: 'past-plan'; page: number; message: string }
  | { kind: 'stalled'; page: number; message: string }
  | { kind: 'runaway'; page: number; message: string }
  | { kind: 'count-mismatch'; message: string };

/** @internal */
export interface EngineResult {
  /** Distinct records handed over. */
  count: number;
  /** `meta.total` of page 1. */
  total: number;
  /** `meta.total` of the last page read. */
  totalAtEnd: number;
  pages: number;
  duplicates: number;
  /** The most pages ever requested and not yet handed over; never above the largest `window`. */
  maxPagesHeld: number;
}

/** @internal */
export interface EngineOptions<T extends { id: string }, R = Page<T>> {
  read: PageReader<T, R>;
  /** Records per page asked for (D7). */
  limit: number;
  /**
   * Pages requested and not yet handed over, at most (memory stays flat). A function is asked
   * each time pages are requested: a caller that runs several lists at once under one budget can
   * give each its share while they run together and the whole window to the last one.
   */
  window: number | (() => number);
  limiter: Limiter;
  signal: AbortSignal;
  ids: IdTracker;
  /**
   * Turns what `read` gave into the page's JSON, in page order, when its turn comes (a
   * `PageBody` is parsed then). Default: what `read` gave is the page.
   */
  parse?: ((read: R) => unknown) | undefined;
  /**
   * What every page is checked against before anything else (the one page-shape check):
   * `lenient` (the default) asks for `data`, an array, and `meta.total`, a number (a missing
   * `meta.page` or `hasNext` is tolerated); `strict` (an exact export) asks for every `meta`
   * field and a string `id` on every record.
   */
  shape?: 'lenient' | 'strict' | undefined;
  /** The error for a page of another shape (its message names the page). Default TypeError. */
  shapeError?: ((message: string) => Error) | undefined;
  /** Called for each anomaly; throw to stop the run, return to go on. */
  onAnomaly: (anomaly: Anomaly) => void;
  /** Hands over one page's new records, in page order; awaited before the next page. */
  onPage: (fresh: T[], info: { page: number; meta: PageMeta; received: number }) => unknown;
  /**
   * Called once, when every page of the plan (known from page 1) has been requested: from then
   * on the budget frees up as the last pages come, and a caller may start its next list in it.
   */
  onPlanRequested?: (() => void) | undefined;
}

/** Pages read past the announced ones, at least, before a growing list stops being followed. */
const MIN_EXTRA_PAGES = 10;

/** @internal */
export async function runPages<T extends { id: string }, R = Page<T>>(
  options: EngineOptions<T, R>,
): Promise<EngineResult> {
  const { limit, window: pageWindow, onAnomaly } = options;
  const own = new AbortController();
  const signal = AbortSignal.any([options.signal, own.signal]);
  const parse = options.parse ?? ((read: R): unknown => read);
  const strict = options.shape === 'strict';
  const shapeError = options.shapeError ?? ((message: string) => new TypeError(message));
  const held = new Map<number, Promise<R>>();
  const result: EngineResult = {
    count: 0,
    total: 0,
    totalAtEnd: 0,
    pages: 0,
    duplicates: 0,
    maxPagesHeld: 0,
  };

  const request = (n: number) => {
    const pending = options.limiter(() => {
      // A page queued behind the budget is not sent once the run is over or failed.
      signal.throwIfAborted();
      return options.read(n, limit, signal);
    });
    // Observed when consumed; this avoids an unhandled rejection if the run stops earlier.
    pending.catch(() => {});
    held.set(n, pending);
    result.maxPagesHeld = Math.max(result.maxPagesHeld, held.size);
  };

  let planned = 1;
  let nextToRequest = 2;
  const windowNow = typeof pageWindow === 'function' ? pageWindow : () => pageWindow;
  let planRequested = false;
  // (Called once a page is consumed, so the plan is page 1's, not the initial guess of one page.)
  const fill = () => {
    const most = windowNow();
    while (nextToRequest <= planned && held.size < most) request(nextToRequest++);
    if (nextToRequest > planned && !planRequested) {
      planRequested = true;
      options.onPlanRequested?.();
    }
  };

  try {
    // (An aborted run sends nothing: the limiter's task checks the signal before reading.)
    request(1);
    let pageSize = limit;
    let announced = 1;
    let totalChangeReported = false;
    let previousIds = new Set<string>();

    for (let n = 1; ; n++) {
      const pending = held.get(n);
      // Stryker disable next-line ConditionalExpression: every path that goes on has requested page n
      if (!pending) break;
      held.delete(n);
      const page = parse(await pending);
      const refused = shapeFault(page, strict);
      if (refused) throw shapeError(`page ${n} of the export ${refused}`);
      const { meta, data } = page as Page<T>;
      result.pages++;
      if (n === 1) {
        options.ids.expect?.(meta.total);
        result.total = meta.total;
        // The service's own answer says how many records a page holds (it may clamp `limit`).
        pageSize = meta.limit >= 1 ? meta.limit : limit;
      }
      result.totalAtEnd = meta.total;
      // The plan (at least the one page read) follows the largest total seen: a list that grows
      // while it is read adds pages.
      planned = Math.max(planned, Math.ceil(meta.total / pageSize));
      if (n === 1) announced = planned;
      // Ask for the following pages before handing this one over: the network works meanwhile.
      fill();

      if (typeof meta.page === 'number' && meta.page !== n) {
        onAnomaly({
          kind: 'wrong-page',
          page: n,
          answeredAs: meta.page,
          message: `page ${n} came back as meta.page ${meta.page}`,
        });
      }
      if (meta.total !== result.total && !totalChangeReported) {
        totalChangeReported = true;
        onAnomaly({
          kind: 'total-changed',
          page: n,
          from: result.total,
          to: meta.total,
          message: `meta.total changed from ${result.total} (page 1) to ${meta.total} (page ${n}): the list changed during the export`,
        });
      }
      if (data.length > pageSize) {
        onAnomaly({
          kind: 'oversized-page',
          page: n,
          message: `page ${n} holds ${data.length} records, more than its limit of ${pageSize}`,
        });
      }
      // (Page 1 has no page before it: previousIds is empty, so it never matches.)
      if (sameIds(data, previousIds)) {
        onAnomaly({ kind: 'repeated-page', page: n, message: `page ${n} repeats page ${n - 1}` });
      }

      const fresh: T[] = [];
      let repeated = 0;
      let brought = false;
      for (const record of data) {
        if (options.ids.add(record.id)) {
          fresh.push(record);
          // New to the caller's set and not on the page before (a window-limited set forgets).
          if (!previousIds.has(record.id)) brought = true;
        } else repeated++;
      }
      if (repeated > 0) {
        result.duplicates += repeated;
        onAnomaly({
          kind: 'duplicates',
          page: n,
          count: repeated,
          message: `page ${n} repeats ${repeated} record(s) already exported (de-duplicated by id); the list shifted during the export`,
        });
      }
      previousIds = new Set(data.map((r) => r.id));
      result.count += fresh.length;
      await options.onPage(fresh, { page: n, meta, received: data.length });
      // Stopped meanwhile (a consumer that left, the caller's signal): no page read ahead is
      // handed over, and the run ends instead of waiting for a taker that will not come.
      signal.throwIfAborted();

      const hasNext =
        typeof (meta as Partial<PageMeta>).hasNext === 'boolean'
          ? meta.hasNext
          : n * pageSize < meta.total;
      if (data.length === 0 && hasNext) {
        onAnomaly({
          kind: 'empty-with-next',
          page: n,
          message: `page ${n} is empty but says hasNext: true`,
        });
        break;
      }
      // (An empty page with hasNext: true stopped above: an empty page arrives here as the end.)
      if (!hasNext) {
        if (n < planned) {
          onAnomaly({
            kind: 'ended-early',
            page: n,
            message: `page ${n} says hasNext: false after ${result.count} of ${result.total} records (${planned} pages expected)`,
          });
        }
        break;
      }
      if (n >= planned) {
        // hasNext: true past the plan contradicts meta.total: followed while it pays, and bounded.
        if (!brought) {
          onAnomaly({
            kind: 'stalled',
            page: n,
            message: `page ${n} brought no new record but says hasNext: true; stopped reading there`,
          });
          break;
        }
        if (n >= announced + Math.max(MIN_EXTRA_PAGES, announced)) {
          onAnomaly({
            kind: 'runaway',
            page: n,
            message: `the list kept growing past twice the ${announced} page(s) meta.total announced; stopped reading at page ${n}`,
          });
          break;
        }
        onAnomaly({
          kind: 'past-plan',
          page: n,
          message: `page ${n} says hasNext: true, but meta.total ${meta.total} means ${planned} page(s)`,
        });
        planned = n + 1;
        fill();
      }
    }

    if (result.count !== result.total || result.count !== result.totalAtEnd) {
      onAnomaly({
        kind: 'count-mismatch',
        message: `exported ${result.count} records, but meta.total was ${result.total} at the start and ${result.totalAtEnd} at the end`,
      });
    }
    return result;
  } finally {
    // Stops pages still in flight or queued (an early end, a failure, a consumer that left).
    own.abort();
  }
}

function sameIds(a: readonly { id: string }[], previous: ReadonlySet<string>): boolean {
  // Two empty pages in a row never get here: the run stops at the first one.
  return a.length === previous.size && a.length > 0 && a.every((r) => previous.has(r.id));
}

const SHAPE = 'is not { data: [...], meta: { total, page, limit, hasNext } }';

/**
 * What is wrong with a page's shape, or undefined when it can be paginated. Lenient but not
 * blind: without `data` or `meta.total` there is nothing to page through; `strict` asks for
 * all of `meta` and an id on every record (an exact export checks and de-duplicates by it).
 */
function shapeFault(page: unknown, strict: boolean): string | undefined {
  const p = page as Partial<Page<{ id?: unknown }>> | null | undefined;
  const meta = p?.meta as Partial<PageMeta> | undefined;
  if (!p || !Array.isArray(p.data) || !meta || typeof meta.total !== 'number') return SHAPE;
  if (!strict) return undefined;
  if (
    typeof meta.page !== 'number' ||
    typeof meta.limit !== 'number' ||
    typeof meta.hasNext !== 'boolean'
  ) {
    return SHAPE;
  }
  // (A record that is no object has no `id`: a JSON number, string or array fails here too.)
  const ids = p.data.every((record) => typeof record?.id === 'string');
  return ids ? undefined : 'holds a record without a string id';
}
