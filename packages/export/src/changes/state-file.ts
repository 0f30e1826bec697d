/**
 * A change state snapshot (D27, FORMATS.md "The change contract"): what one `--changes` run saw of
 * one export, `DIR/.<resource>.changes-state.<runId>`, which a later run compares with.
 *
 * It proves its own integrity: a header of fixed size records the export, the run,
 * the filters, the record count and the SHA-256 of the body; the body is one `<id as
 * JSON>\t<content hash>` line per record, sorted by id. A state truncated (even at a line
 * boundary), edited, appended to, of another export or of other filters is refused with a line
 * naming the file and the fix (`--full`). The header is written last, in place, once the body's
 * count and checksum are known.
 *
 * A snapshot is written under its final name, fsynced, and becomes the committed state only when
 * the run's manifest names it (the manifest's rename is the one commit point): a snapshot that no
 * manifest names is the leftover of a run that did not commit, and is pruned.
 */
import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ExportError } from '../errors.js';
import { FILE_MODE } from '../files/atomic-file.js';
import { createExclusive, openForReading } from '../files/safe-open.js';

const STATE_VERSION = 2;
const MAGIC = 'rcs-changes-state';
/** The header line, padded with spaces, `\n` included. */
const HEADER_BYTES = 512;
const WRITE_CHUNK = 256 * 1024;
const READ_BUFFER = 64 * 1024;

/** The listing a state was taken of: runs with other filters list other records (D8). */
export interface StateFilters {
  archived?: 'include' | 'only';
}

export interface StateHeader {
  resource: string;
  runId: string;
  filters: StateFilters;
  count: number;
  sha256: string;
}

export function stateFileOf(resource: string, runId: string): string {
  return `.${resource}.changes-state.${runId}`;
}

/** The one state file per export of rcs before run ids (no integrity header). */
export function legacyStateFileOf(resource: string): string {
  return `.${resource}.changes-state`;
}

export class ChangesStateError extends ExportError {
  override name = 'ChangesStateError';
}

export const FULL_FIX = 'run with `full` to start over (every record an insert; reload the tables)';

function filtersText(filters: StateFilters): string {
  return filters.archived ? `\`archived\` ${filters.archived}` : 'no filter';
}

/** Writes a snapshot: the body line by line, then the header in place; `finish` fsyncs. */
export class StateWriter {
  readonly path: string;
  #handle: FileHandle | undefined;
  #hash: Hash = createHash('sha256');
  #count = 0;
  #parts: string[] = [];
  #size = 0;
  #position = HEADER_BYTES;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  static async create(path: string): Promise<StateWriter> {
    // O_EXCL: a run id is new, so its snapshot never exists yet; O_NOFOLLOW: a link planted
    // under its name is refused, never written through (safe-open.ts).
    return new StateWriter(path, await createExclusive(path, FILE_MODE));
  }

  async add(idJson: string, hash: string): Promise<void> {
    const line = `${idJson}\t${hash}\n`;
    this.#parts.push(line);
    // Stryker disable next-line AssignmentOperator: the buffer's size only sets how often bytes are written, never which
    this.#size += line.length;
    this.#count++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: as above: flushing sooner or later writes the same bytes
    if (this.#size >= WRITE_CHUNK) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (!this.#handle) return;
    const bytes = Buffer.from(this.#parts.join(''));
    this.#parts = [];
    this.#size = 0;
    this.#hash.update(bytes);
    await writeAll(this.#handle, bytes, this.#position);
    this.#position += bytes.byteLength;
  }

  /** Writes the header over its reserved space, fsyncs, closes. */
  async finish(header: Omit<StateHeader, 'count' | 'sha256'>): Promise<StateHeader> {
    await this.#flush();
    const handle = this.#handle;
    if (!handle) throw new Error(`${this.path}: finished twice`);
    this.#handle = undefined;
    const full: StateHeader = { ...header, count: this.#count, sha256: this.#hash.digest('hex') };
    try {
      await writeAll(handle, headerBytes(full), 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return full;
  }

  /** Removes the snapshot (a run that did not commit). Never throws. */
  async discard(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => {});
    await unlink(this.path).catch(() => {});
  }
}

async function writeAll(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset, position);
    offset += bytesWritten;
    position += bytesWritten;
  }
}

function headerBytes(header: StateHeader): Buffer {
  const text = `${MAGIC} ${STATE_VERSION} ${JSON.stringify(header)}`;
  // The line and its newline must fit the reserved space whole.
  if (Buffer.byteLength(text) >= HEADER_BYTES) {
    throw new Error(`change state header too long: ${text}`);
  }
  const bytes = Buffer.alloc(HEADER_BYTES, ' ');
  bytes.write(text);
  bytes[HEADER_BYTES - 1] = 0x0a;
  return bytes;
}

export interface StateEntry {
  id: string;
  /** `JSON.stringify(id)`. */
  idJson: string;
  hash: string;
}

function parseIdJson(idJson: string): string | undefined {
  try {
    const id = JSON.parse(idJson) as unknown;
    if (typeof id === 'string') return id;
  } catch {
    // Not JSON: no id.
  }
  return undefined;
}

/** What a run expects of the state it compares with. */
export interface ExpectedState {
  resource: string;
  runId: string;
  filters: StateFilters;
}

/**
 * Reads the header and checks that it is the state this run may compare with: of this export,
 * of the run its name says, taken with the same filters. The body is checked as it streams.
 */
async function readHeader(handle: FileHandle, path: string, expected: ExpectedState) {
  const damaged = (why: string) =>
    new ChangesStateError(`${path} is damaged (${why}); ${FULL_FIX}`);
  const head = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(head, 0, HEADER_BYTES, 0);
  const firstLine = head.subarray(0, bytesRead).toString('utf8').split('\n')[0]!;
  if (firstLine.startsWith(`${MAGIC} 1 `)) {
    throw new ChangesStateError(
      `${path} was written by an earlier rcs and cannot prove its integrity; ${FULL_FIX}`,
    );
  }
  // A short read leaves the header's last byte 0 (Buffer.alloc), never the newline.
  if (head[HEADER_BYTES - 1] !== 0x0a) {
    throw damaged(bytesRead === 0 ? 'empty' : 'no complete header');
  }
  // MAGIC and STATE_VERSION: another version is not a header this rcs can read.
  const match = /^rcs-changes-state 2 (\{.*\})\s*$/.exec(firstLine);
  let header: Partial<StateHeader> | undefined;
  try {
    header = match ? (JSON.parse(match[1]!) as Partial<StateHeader>) : undefined;
  } catch {
    // Not JSON: no header.
  }
  if (!header) {
    throw damaged('not a change state header');
  }
  if (header.resource !== expected.resource) {
    throw new ChangesStateError(
      `${path} is the change state of another export (${JSON.stringify(header.resource)}, not ${expected.resource}); ${FULL_FIX}`,
    );
  }
  if (header.runId !== expected.runId) {
    throw new ChangesStateError(
      `${path} holds run ${JSON.stringify(header.runId)}, not ${expected.runId} as its name says; ${FULL_FIX}`,
    );
  }
  const filters = header.filters ?? {};
  if (filtersText(filters) !== filtersText(expected.filters)) {
    throw new ChangesStateError(
      `${path} was taken with ${filtersText(filters)}, this run lists ${expected.resource} with ${filtersText(expected.filters)}: comparing them would report the records of one listing as deleted from the other; ${FULL_FIX}`,
    );
  }
  if (
    typeof header.count !== 'number' ||
    typeof header.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(header.sha256)
  ) {
    throw damaged('header without count and checksum');
  }
  return { count: header.count, sha256: header.sha256, damaged };
}

/**
 * The state a run compares with, streamed in id order; the whole body is proven against the
 * header's count and checksum by the time the stream ends (before anything is committed).
 */
export async function* readState(
  path: string,
  expected: ExpectedState,
): AsyncGenerator<StateEntry> {
  let handle: FileHandle;
  try {
    // Never through a link: a planted one must not decide what this run reports as changed.
    handle = await openForReading(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ChangesStateError(
        `${path} is missing: the change state of run ${expected.runId} was pruned or never committed in this directory; ${FULL_FIX}`,
      );
    }
    throw error;
  }
  try {
    const { count, sha256, damaged } = await readHeader(handle, path, expected);
    const hash = createHash('sha256');
    const decoder = new StringDecoder(); // UTF-8
    const buffer = Buffer.allocUnsafe(READ_BUFFER);
    let position = HEADER_BYTES;
    let rest = '';
    let n = 0;
    let last: string | undefined;
    const entryOf = (line: string): StateEntry => {
      n++;
      const tab = line.lastIndexOf('\t');
      const idJson = line.slice(0, tab);
      const entryHash = line.slice(tab + 1);
      // Without a tab (-1) the "hash" is the whole line, whose quotes fail the hash's pattern.
      const id = parseIdJson(idJson);
      if (id === undefined || !/^[A-Za-z0-9_-]{22}$/.test(entryHash)) {
        throw damaged(`line ${n + 1}: not an id and a hash`);
      }
      // Stryker disable next-line ConditionalExpression: `undefined >= id` is false, so `last !== undefined` is there for the types
      if (last !== undefined && last >= id) throw damaged(`line ${n + 1}: ids out of order`);
      last = id;
      return { id, idJson, hash: entryHash };
    };
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const bytes = buffer.subarray(0, bytesRead);
      hash.update(bytes);
      const text = rest + decoder.write(bytes);
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        yield entryOf(text.slice(start, nl));
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    rest += decoder.end();
    if (rest !== '') throw damaged(`line ${n + 2}: cut short`);
    if (n !== count || hash.digest('hex') !== sha256) {
      throw damaged(
        n !== count
          ? `${n} records where its header says ${count}: truncated or appended to`
          : 'its checksum does not match its records: edited',
      );
    }
  } finally {
    await handle.close();
  }
}

/** The run ids of this export's snapshots in `dir`. */
async function snapshotsIn(dir: string, resource: string): Promise<string[]> {
  const prefix = stateFileOf(resource, '');
  const names = await readdir(dir).catch(() => [] as string[]);
  // Stryker disable next-line MethodExpression: without the filter, other names give ids of no snapshot or of one pruned anyway
  return names.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
}

/** Removes this export's snapshots other than `keep` (after a commit; leftovers of any run). */
export async function pruneSnapshots(
  dir: string,
  resource: string,
  keep: ReadonlySet<string>,
): Promise<void> {
  const ids = await snapshotsIn(dir, resource);
  await Promise.all(
    ids
      .filter((id) => !keep.has(id))
      .map((id) => unlink(join(dir, stateFileOf(resource, id))).catch(() => {})),
  );
}
