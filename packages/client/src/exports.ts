import type { Client } from 'openapi-fetch';
import { errorOf } from './call.js';
import { RcsError } from './errors.js';
import {
  EXPORT_RESOURCES,
  EXPORT_TABLE,
  type ExportEntry,
  type ExportResource,
} from './exports-table.js';
import type { paths } from './generated/openapi.js';
import { PageBody } from './page-body.js';
import {
  assertLimit,
  assertPage,
  type ExportIterable,
  type Page,
  type PaginateOptions,
  paginate,
} from './paginate.js';
import type { Redactor } from './redact.js';
import type { ClientTracing, TracedSpan } from './tracing.js';
import type { FetchLike, RequestOptions, TracedRequestOptions } from './transport.js';
import type { ExportMeta } from './types.js';

/** The operation behind one row of the table, read from the generated `paths`. */
type ExportOperation<E extends ExportEntry> = paths[E['path']]['get'];
/** `{ data, meta }` of one export, as openapi.yaml declares it. */
export type ExportPageOf<E extends ExportEntry> =
  ExportOperation<E>['responses'][200]['content']['application/json'];
/** One record of an export (e.g. `ExportRecordOf<…users row…>` is `UserExportRecord`). */
export type ExportRecordOf<E extends ExportEntry> = ExportPageOf<E>['data'][number];
/** The query of an export: `page`, `limit`, and `archived` for tracks only (D8). */
export type ExportQueryOf<E extends ExportEntry> = NonNullable<
  ExportOperation<E>['parameters']['query']
>;

export type ExportListOptions<Q> = Q & RequestOptions;
export type ExportAllOptions<Q> = Omit<Q, 'page' | 'limit'> &
  PaginateOptions &
  Omit<RequestOptions, 'signal'>;

/** One of the nine exports: one page, or every record. */
export interface ExportAccessor<R extends { id: string }, Q> {
  readonly resource: ExportResource;
  readonly name: string;
  readonly path: string;
  /** One page, as the service answers it. */
  list(options?: ExportListOptions<Q>): Promise<{ data: R[]; meta: ExportMeta }>;
  /**
   * One page, its body not parsed yet: for a reader that holds pages ahead of its consumer and
   * parses each in its turn (`body.json()`), so that pages waiting are bytes, not records
   *. Failures are thrown as by `list`.
   */
  listBody(options?: ExportListOptions<Q>): Promise<PageBody<{ data: R[]; meta: ExportMeta }>>;
  /** Every record, de-duplicated by `id`, in page order; see `stats` (D9). */
  all(options?: ExportAllOptions<Q>): ExportIterable<R>;
}

type AccessorOf<E extends ExportEntry> = ExportAccessor<ExportRecordOf<E>, ExportQueryOf<E>>;

/** `exports.realCallSessions`, `exports.trackAssignments`, … one per row of EXPORT_TABLE. */
export type ExportsApi = { readonly [E in ExportEntry as E['name']]: AccessorOf<E> };

/** Any of the nine, as `exportsByResource` returns it for a resource known only at run time. */
export type AnyExportAccessor = ExportAccessor<
  { id: string } & Record<string, unknown>,
  { page?: number; limit?: number; archived?: 'include' | 'only' }
>;

export interface ExportDeps {
  api: Client<paths>;
  transport: (options?: TracedRequestOptions) => FetchLike;
  redact: Redactor;
  requestIdHeader?: string | undefined;
  baseUrl: string;
  tracing?: ClientTracing | undefined;
}

const REQUEST_KEYS = ['signal', 'timeoutMs', 'maxRetries', 'retryForMs', 'idempotent', 'stats'];

/** D7 for all nine, plus D8's `archived` on tracks. */
const QUERY_KEYS = ['page', 'limit', 'archived'] as const;
const PAGINATE_KEYS = ['concurrency', 'limit', 'signal', 'onPage', 'dedupeWindow'] as const;

const has = (list: readonly string[], key: string) => list.includes(key);

/** A mistyped option (`pgae`) would otherwise go out as a query parameter or be ignored. */
function assertKnownKeys(
  options: Record<string, unknown>,
  known: readonly string[],
  where: string,
) {
  for (const key of Object.keys(options)) {
    if (!has(known, key)) {
      throw new RcsError(`${where}: unknown option "${key}"; expected one of ${known.join(', ')}`);
    }
  }
}

function splitOptions(options: Record<string, unknown>): {
  query: Record<string, unknown>;
  request: RequestOptions;
} {
  const query: Record<string, unknown> = {};
  const request: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (has(REQUEST_KEYS, key)) request[key] = value;
    else query[key] = value;
  }
  return { query, request: request as RequestOptions };
}

/** D8: `archived` is `include` or `only`, and only the tracks export takes it. */
function assertArchived(entry: ExportEntry, archived: unknown): void {
  if (archived === undefined) return;
  if (entry.resource !== 'tracks') {
    throw new RcsError(`archived applies to the tracks export only, not to ${entry.resource}`);
  }
  if (!['include', 'only'].includes(archived as string)) {
    throw new RcsError(`archived must be 'include' or 'only', got ${String(archived)}`);
  }
}

function makeAccessor(entry: ExportEntry, deps: ExportDeps): AnyExportAccessor {
  type AnyPage = Page<{ id: string } & Record<string, unknown>>;

  /** One page's body; `method` names the accessor's method in an error about its options. */
  async function readBody(
    options: Record<string, unknown>,
    method: 'list' | 'listBody' | 'all',
    parentSpan?: TracedSpan,
  ): Promise<PageBody<AnyPage>> {
    assertKnownKeys(options, [...QUERY_KEYS, ...REQUEST_KEYS], `exports.${entry.name}.${method}`);
    const { query, request } = splitOptions(options);
    if (query.page !== undefined) assertPage(query.page as number);
    if (query.limit !== undefined) assertLimit(query.limit as number);
    assertArchived(entry, query.archived);
    // The nine rows share one shape; the per-row types are restored by ExportsApi.
    const get = deps.api.GET as unknown as (
      path: string,
      init: {
        params: { query: Record<string, unknown> };
        fetch: FetchLike;
        parseAs: 'arrayBuffer';
      },
    ) => Promise<{ data?: ArrayBuffer; error?: unknown; response: Response }>;
    const result = await get(entry.path, {
      params: { query },
      fetch: deps.transport({ ...request, parentSpan, urlTemplate: entry.path }),
      // Parsed by the caller in its turn (PageBody): an error's body is still parsed here.
      parseAs: 'arrayBuffer',
    });
    const qs = new URLSearchParams(query as Record<string, string>).toString();
    const url = `${deps.baseUrl}${entry.path}${qs ? `?${qs}` : ''}`;
    const error = errorOf(result, { method: 'GET', url }, deps);
    if (error) throw error;
    // (No data: an answer without a body, read as an empty one.)
    return new PageBody(new Uint8Array(result.data ?? new ArrayBuffer(0)));
  }

  const listBody = (options: Record<string, unknown> = {}) => readBody(options, 'listBody');
  const list = async (options: Record<string, unknown> = {}) =>
    (await readBody(options, 'list')).json() as AnyPage;

  function all(options: Record<string, unknown> = {}) {
    assertKnownKeys(
      options,
      ['archived', ...PAGINATE_KEYS, ...REQUEST_KEYS],
      `exports.${entry.name}.all`,
    );
    // Checked at the call, like the paging options, not at the first read.
    assertArchived(entry, options.archived);
    const paging: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(options)) {
      if (has(PAGINATE_KEYS, key)) paging[key] = value;
      else rest[key] = value;
    }
    return paginate(
      (page, limit, signal, parent) => readBody({ ...rest, page, limit, signal }, 'all', parent),
      paging as PaginateOptions,
      deps.tracing && {
        tracing: deps.tracing,
        // (One of nine names: low cardinality, as span names should be.)
        name: `rcs.export ${entry.resource}`,
        attributes: { 'rcs.export.resource': entry.resource },
      },
    );
  }

  return { resource: entry.resource, name: entry.name, path: entry.path, list, listBody, all };
}

export function createExports(deps: ExportDeps): {
  exports: ExportsApi;
  exportsByResource: (resource: string) => AnyExportAccessor;
} {
  const byName: Record<string, AnyExportAccessor> = {};
  const byResource = new Map<string, AnyExportAccessor>();
  for (const entry of EXPORT_TABLE) {
    const accessor = makeAccessor(entry, deps);
    byName[entry.name] = accessor;
    byResource.set(entry.resource, accessor);
  }
  return {
    exports: byName as unknown as ExportsApi,
    exportsByResource(resource: string) {
      const accessor = byResource.get(resource);
      if (!accessor) {
        throw new RcsError(
          `unknown export resource "${resource}"; expected one of: ${EXPORT_RESOURCES.join(', ')}`,
        );
      }
      return accessor;
    },
  };
}
