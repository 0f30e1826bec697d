/**
 * `--changes` (D27): `DIR/<resource>.changes.jsonl`, what was inserted, updated and deleted since
 * the run this one compares with (its base: the run named by `--ack`, else the last committed
 * run; FORMATS.md "The change contract"), one line per record in id order:
 * `{"op":"insert"|"update"|"delete","id":…,"record":{…}}` (no `record` for a delete).
 *
 * The states it compares are snapshots (state-file.ts): compact (an id and a hash per record,
 * never the data), each named by its run and proving its own integrity. This run's snapshot is
 * written under its own name and becomes the committed state only with the run's manifest.
 *
 * The content hash is SHA-256 (first 128 bits) of the record's canonical JSON: object keys sorted
 * at every level, so a record whose properties come back in another order is not an update.
 *
 * Memory stays flat at any size, but for the base's hashes and the exact id set (pager.ts), 8
 * bytes a slot each (id-set.ts): records are hashed as pages arrive and kept in a batch that is
 * sorted and spilled to a run file (`.partial`, removed at the end or by the next run's lock)
 * when it reaches CHANGES_MEMORY (the run's exports run one at a time). A record whose content
 * hash the base has is unchanged (the hash covers the whole record, its id too): only its id and
 * hash are kept, never its text (the change file carries only inserts and updates), so a
 * nightly run that finds few changes writes and merges little more than ids;
 * the end is one merge of the sorted runs (a heap over their heads, read buffers of 64 KB, smaller when there are many runs) with the
 * sorted previous state, streaming both.
 */
import { hash, randomBytes } from 'node:crypto';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ExportError } from '../errors.js';
import { AtomicFile, PARTIAL_SUFFIX, type WrittenFile } from '../files/atomic-file.js';
import type { ApiRecord } from '../formats/encoders.js';
import { IdSet } from './id-set.js';
import {
  readState,
  type StateEntry,
  type StateFilters,
  StateWriter,
  stateFileOf,
} from './state-file.js';

export { ChangesStateError } from './state-file.js';

/**
 * Record text held in a batch before it spills. Smaller batches mean more (smaller) run files to
 * merge, which costs little; larger ones add to the peak memory of a Parquet export with
 * --changes, whose open row group holds memory of its own (bench/export, memory.mjs).
 */
const CHANGES_MEMORY = 2 * 1024 * 1024;
/** Run files of one level merged into one (bounds open files and merge memory). */
export const MERGE_FAN_IN = 32;
/** Write the changes and state files in pieces of about this size. */
const WRITE_CHUNK = 256 * 1024;

export function changesFileOf(resource: string): string {
  return `${resource}.changes.jsonl`;
}

/** Keys as JSON text, kept for the few property names an export repeats on every record. */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 4096;

function quoted(key: string): string {
  let text = QUOTED.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(key, text);
  }
  return text;
}

/** Sorts in place as `Array.prototype.sort()` would (UTF-16 order), without its work copy. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * JSON with object keys sorted at every level (arrays keep their order). Built by appending to
 * one string (the per-object filter/map/join arrays were a large share of what a
 * `--changes` run allocated); the text is the same as before, so states stay comparable.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(object));
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += quoted(key);
    out += ':';
    out += canonicalJson(item);
  }
  return `${out}}`;
}

export function contentHash(record: unknown): string {
  // One-shot hash (no Hash object per record); SHA-256, first 128 bits, base64url.
  return hash('sha256', canonicalJson(record), 'base64url').slice(0, 22);
}

/** The state or a run names a record by its id as JSON text; order is the id string's order. */
interface Entry {
  id: string;
  /** `JSON.stringify(id)`. */
  idJson: string;
  hash: string;
  /**
   * The record as JSON (runs only; the state keeps no data). Not kept for a record the base has
   * unchanged (its hash is among the base's): the change file never carries it.
   */
  record?: string | undefined;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Read buffer of the previous state, and of each run file when there are few. */
const READ_BUFFER = 64 * 1024;
/**
 * What the merge's run readers hold together (their buffers, and the text each keeps of its
 * current piece, about as much again): with many runs (a long export, a run's exports sharing
 * CHANGES_MEMORY), each reads in smaller pieces instead of 64 KB each (real-call
 * sessions spilled about 200 runs at 1,000,000 records, 2 × 64 KB each held at once).
 */
const MERGE_MEMORY = 4 * 1024 * 1024;
const MIN_READ_BUFFER = 4 * 1024;

/** The read buffer of each of `runs` run files in one merge. */
export function runReadBuffer(runs: number): number {
  const share = Math.floor(MERGE_MEMORY / (2 * Math.max(1, runs)));
  return Math.max(MIN_READ_BUFFER, Math.min(READ_BUFFER, share));
}

/** Reads a file line by line (no line is ever larger than one record). */
async function* lines(handle: FileHandle, size = READ_BUFFER): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(size);
  let rest = '';
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    const text = rest + decoder.write(buffer.subarray(0, bytesRead));
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  rest += decoder.end();
  if (rest !== '') yield rest;
}

/** A sorted run file of this export's records. */
async function* runEntries(path: string, readBuffer: number): AsyncGenerator<Entry> {
  const handle = await open(path, 'r');
  try {
    for await (const line of lines(handle, readBuffer)) {
      const a = line.indexOf('\t');
      const b = line.indexOf('\t', a + 1);
      const idJson = line.slice(0, a);
      yield {
        id: JSON.parse(idJson) as string,
        idJson,
        hash: line.slice(a + 1, b),
        // An empty field: a record unchanged since the base, whose text was not kept.
        record: b + 1 < line.length ? line.slice(b + 1) : undefined,
      };
    }
  } finally {
    await handle.close();
  }
}

async function* fromArray<T>(entries: readonly T[]): AsyncGenerator<T> {
  yield* entries;
}

/** Merges sorted sources into one sorted stream: a binary heap over the sources' heads. */
async function* mergeSorted(sources: AsyncGenerator<Entry>[]): AsyncGenerator<Entry> {
  const heap: { entry: Entry; source: AsyncGenerator<Entry> }[] = [];
  const less = (a: number, b: number) => compareIds(heap[a]!.entry.id, heap[b]!.entry.id) < 0;
  const swap = (a: number, b: number) => {
    [heap[a], heap[b]] = [heap[b]!, heap[a]!];
  };
  const up = (start: number) => {
    for (let i = start; i > 0 && less(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
  };
  const down = (start: number) => {
    for (let i = start; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < heap.length && less(l, min)) min = l;
      if (r < heap.length && less(r, min)) min = r;
      if (min === i) return;
      swap(i, min);
      i = min;
    }
  };
  for (const source of sources) {
    const first = await source.next();
    if (!first.done) {
      heap.push({ entry: first.value, source });
      up(heap.length - 1);
    }
  }
  while (heap.length > 0) {
    const top = heap[0]!;
    yield top.entry;
    const next = await top.source.next();
    if (next.done) {
      const last = heap.pop()!;
      if (heap.length === 0) return;
      heap[0] = last;
    } else {
      heap[0] = { entry: next.value, source: top.source };
    }
    down(0);
  }
}

interface ChangeCounts {
  inserts: number;
  updates: number;
  deletes: number;
  /** `--allow-drift`: records missing from the listing that were not reported as deleted. */
  deletesWithheld: number;
}

export interface TrackerOptions {
  /** This run's id: names its snapshot. */
  runId: string;
  /** The run whose snapshot this one compares with; undefined: none (every record an insert). */
  base: string | undefined;
  /** The listing's filters, recorded in the snapshot and checked against the base's. */
  filters: StateFilters;
  /** `--allow-drift`: never report a delete (the listing is not trustworthy). */
  withholdDeletes?: boolean;
  batchBytes?: number;
}

export interface ChangesResult extends ChangeCounts {
  file: string;
  written: WrittenFile;
}

/** Buffers a file's text (a run file, the changes file) and writes it in pieces of WRITE_CHUNK. */
class ChunkedWriter {
  #parts: string[] = [];
  #size = 0;
  constructor(readonly file: { write(text: string): Promise<unknown> }) {}
  async add(text: string): Promise<void> {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= WRITE_CHUNK) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#parts.length === 0) return;
    const text = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    await this.file.write(text);
  }
}

/** One export's change tracking: `add` each page, `finish`, then `commit` with the data files. */
export class ChangeTracker {
  readonly resource: string;
  readonly #dir: string;
  #batch: Entry[] = [];
  #batchBytes = 0;
  /** Sorted run files on disk, oldest first, and how many merges made each (its level). */
  #runs: { path: string; level: number }[] = [];
  #runNumber = 0;
  #spills = 0;
  #changes: AtomicFile | undefined;
  #state: StateWriter | undefined;
  /** Set once the run's manifest names this run's snapshot: then it is the committed state. */
  #stateCommitted = false;
  #tag = randomBytes(4).toString('hex');
  /** The base's content hashes, read once before the first page (none without a base). */
  #known: Promise<IdSet | undefined> | undefined;
  readonly #batchLimit: number;
  readonly #options: TrackerOptions;

  constructor(dir: string, resource: string, options: TrackerOptions) {
    this.#dir = dir;
    this.resource = resource;
    this.#options = options;
    this.#batchLimit = options.batchBytes ?? CHANGES_MEMORY;
  }

  /** The snapshot this run writes (committed when the manifest names it). */
  get stateFile(): string {
    return stateFileOf(this.resource, this.#options.runId);
  }

  /** Batches spilled to run files so far (for tests of the spill path). */
  get runs(): number {
    return this.#spills;
  }

  /** Run files on disk now (at most MERGE_FAN_IN - 1 per level). */
  get runFiles(): number {
    return this.#runs.length;
  }

  /** Hashes a page of records (the caller has already dropped repeated ids). */
  async add(records: readonly ApiRecord[]): Promise<void> {
    this.#known ??= this.#readKnown();
    const known = await this.#known;
    for (const record of records) {
      const hash = contentHash(record);
      const text = known?.has(hash) ? undefined : JSON.stringify(record);
      this.#batch.push({ id: record.id, idJson: JSON.stringify(record.id), hash, record: text });
      this.#batchBytes += (text?.length ?? 0) + record.id.length + 32;
    }
    if (this.#batchBytes >= this.#batchLimit) await this.#spill();
  }

  /** The base's hashes; a base that is missing or damaged fails here, before any page is kept. */
  async #readKnown(): Promise<IdSet | undefined> {
    const previous = this.#previous();
    if (!previous) return undefined;
    const known = new IdSet();
    for await (const entry of previous) known.add(entry.hash);
    return known;
  }

  /** The base's snapshot, streamed (checked as it streams); undefined without a base. */
  #previous(): AsyncGenerator<StateEntry> | undefined {
    const { base, filters } = this.#options;
    if (base === undefined) return undefined;
    return readState(join(this.#dir, stateFileOf(this.resource, base)), {
      resource: this.resource,
      runId: base,
      filters,
    });
  }

  #sortedBatch(): Entry[] {
    const batch = this.#batch;
    this.#batch = [];
    this.#batchBytes = 0;
    return batch.sort((a, b) => compareIds(a.id, b.id));
  }

  async #spill(): Promise<void> {
    await this.#writeRun(this.#sortedBatch(), 0);
    this.#spills++;
    // Whenever MERGE_FAN_IN runs of one level are on disk, merge them into one run of the next
    // level (levels only decrease along #runs): open files and the final merge stay bounded,
    // and each record is rewritten about log_MERGE_FAN_IN(runs) times.
    for (;;) {
      const n = this.#runs.length;
      if (n < MERGE_FAN_IN) return;
      const tail = this.#runs.slice(n - MERGE_FAN_IN);
      const level = tail[0]!.level;
      if (!tail.every((r) => r.level === level)) return;
      const readBuffer = runReadBuffer(MERGE_FAN_IN);
      await this.#writeRun(mergeSorted(tail.map((r) => runEntries(r.path, readBuffer))), level + 1);
      // Only now out of #runs: until the merged run is written, discard() removes them.
      this.#runs.splice(n - MERGE_FAN_IN, MERGE_FAN_IN);
      await Promise.all(tail.map((r) => unlink(r.path).catch(() => {})));
    }
  }

  /** Writes sorted entries as a run file of the given level. */
  async #writeRun(entries: Entry[] | AsyncIterable<Entry>, level: number): Promise<void> {
    const path = join(
      this.#dir,
      `.${this.resource}.changes-run${this.#runNumber++}.${process.pid}.${this.#tag}${PARTIAL_SUFFIX}`,
    );
    this.#runs.push({ path, level });
    const handle = await open(path, 'wx', 0o600);
    try {
      const run = new ChunkedWriter(handle);
      for await (const e of entries) await run.add(`${e.idJson}\t${e.hash}\t${e.record ?? ''}\n`);
      await run.flush();
    } finally {
      await handle.close();
    }
  }

  /**
   * Compares with the previous state and writes the changes file and the new state aside
   * (fsynced and verified, not yet visible).
   */
  async finish(): Promise<ChangesResult> {
    // The last batch joins the runs on disk first (its spill may merge).
    if (this.#runs.length > 0 && this.#batch.length > 0) await this.#spill();
    const current = this.#runs.length === 0 ? [fromArray(this.#sortedBatch())] : [];
    if (this.#runs.length > 0) {
      const readBuffer = runReadBuffer(this.#runs.length);
      for (const run of this.#runs) current.push(runEntries(run.path, readBuffer));
    }
    const file = changesFileOf(this.resource);
    const { runId, filters } = this.#options;
    this.#changes = await AtomicFile.create(join(this.#dir, file));
    this.#state = await StateWriter.create(join(this.#dir, this.stateFile));
    const changes = new ChunkedWriter(this.#changes);
    const state = this.#state;
    const counts: ChangeCounts = { inserts: 0, updates: 0, deletes: 0, deletesWithheld: 0 };

    const previous = this.#previous() ?? fromArray<StateEntry>([]);
    const records = mergeSorted(current);
    let prev = (await previous.next()).value ?? undefined;
    let cur = (await records.next()).value ?? undefined;
    let lastId: string | undefined;
    while (prev || cur) {
      const order = !prev ? -1 : !cur ? 1 : compareIds(cur.id, prev.id);
      if (order <= 0 && cur) {
        if (lastId !== undefined && compareIds(lastId, cur.id) >= 0) {
          throw new ExportError(`${this.resource}: record ${cur.idJson} was exported twice`);
        }
        lastId = cur.id;
        await state.add(cur.idJson, cur.hash);
        if (order < 0) {
          counts.inserts++;
          await changes.add(`{"op":"insert","id":${cur.idJson},"record":${this.#textOf(cur)}}\n`);
        } else if (cur.hash !== prev!.hash) {
          counts.updates++;
          await changes.add(`{"op":"update","id":${cur.idJson},"record":${this.#textOf(cur)}}\n`);
        }
        if (order === 0) prev = (await previous.next()).value ?? undefined;
        cur = (await records.next()).value ?? undefined;
      } else if (prev) {
        if (this.#options.withholdDeletes) {
          // --allow-drift: the listing may have missed records that exist, so a record it lacks
          // is not known to be deleted. It stays in the state (as the consumer still has it);
          // a later run without --allow-drift deletes it if it is really gone.
          counts.deletesWithheld++;
          await state.add(prev.idJson, prev.hash);
        } else {
          counts.deletes++;
          await changes.add(`{"op":"delete","id":${prev.idJson}}\n`);
        }
        prev = (await previous.next()).value ?? undefined;
      }
    }
    await changes.flush();
    await this.#removeRuns();
    const written = await this.#changes.finish();
    await state.finish({ resource: this.resource, runId, filters });
    return { file, written, ...counts };
  }

  /**
   * The text of a record that changed. It is always kept, since its hash is not the base's; only
   * a content hash sharing its 64-bit hash with one of the base's could make it missing
   * (id-set.ts), and then the export fails naming the record instead of writing a change
   * without its data.
   */
  #textOf(entry: Entry): string {
    if (entry.record !== undefined) return entry.record;
    throw new ExportError(
      `${this.resource}: record ${entry.idJson} changed, but its content hash matched a record of run ${this.#options.base} and its text was not kept; run again with \`full\``,
    );
  }

  /**
   * Renames the change file into place (with the data files, before the manifest). The snapshot
   * is already under its own name: it becomes the committed state when the manifest names it.
   */
  async commit(): Promise<void> {
    await this.#changes?.commit();
  }

  /** The run's manifest is in place and names this run's snapshot: keep it. */
  stateCommitted(): void {
    this.#stateCommitted = true;
  }

  async #removeRuns(): Promise<void> {
    const runs = this.#runs;
    this.#runs = [];
    await Promise.all(runs.map((run) => unlink(run.path).catch(() => {})));
  }

  /** Removes everything this run wrote aside; the previous state stays. Never throws. */
  async discard(): Promise<void> {
    this.#batch = [];
    await this.#removeRuns();
    await Promise.all([
      this.#changes?.discard(),
      this.#stateCommitted ? undefined : this.#state?.discard(),
    ]);
  }
}
