/**
 * Where one export's pages go: files in the output directory (written aside, committed by
 * rename) or a stream (stdout for `--out -`). Both take pages in page order.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import type { ExportResource } from '@rcs/client';
import pkg from '../package.json' with { type: 'json' };
import { ExportError } from './errors.js';
import { AtomicFile, type WrittenFile } from './files/atomic-file.js';
import type { ExportFormat, ParquetFileShape } from './files/manifest.js';
import { columnsOf, SESSION_ITEMS_FILE_STEM, SESSION_ITEMS_RESOURCE } from './formats/columns.js';
import {
  type ApiRecord,
  type Chunk,
  csvEncoder,
  jsonlEncoder,
  type PageEncoder,
  sessionItemsEncoder,
} from './formats/encoders.js';
import type { ParquetCompression } from './formats/parquet-compression.js';
import type { ParquetOptions } from './formats/parquet-encoder.js';

export interface OutputSettings {
  format: ExportFormat;
  csvRaw: boolean;
  bom: boolean;
  /** Parquet: a row group is cut at this many rows, or this many uncompressed bytes. */
  rowGroupRows: number;
  rowGroupBytes: number;
  compression: ParquetCompression;
}

/**
 * Names the writer in a Parquet file's footer (`created_by`), with its version, the way readers
 * expect it ("parquet-mr version 1.12.3"): a reader that must work around a writer's bug asks it.
 */
const CREATED_BY = `rcs version ${pkg.version}`;

/** The main encoder of an export, and the items encoder when the export has a child table. */
async function encodersOf(
  resource: ExportResource,
  settings: OutputSettings,
): Promise<{ main: PageEncoder; items: PageEncoder | undefined }> {
  if (settings.format === 'jsonl') return { main: jsonlEncoder(), items: undefined };
  if (settings.format === 'parquet') {
    // Loaded for this format only: the writer is a chunk of its own (start-up, bench/cli).
    const [parquet, schema] = await Promise.all([
      import('./formats/parquet-encoder.js'),
      import('./formats/parquet-schema.js'),
    ]);
    const options: ParquetOptions = {
      rowGroupRows: settings.rowGroupRows,
      rowGroupBytes: settings.rowGroupBytes,
      compression: settings.compression,
    };
    return {
      main: parquet.parquetEncoder(
        schema.recordShapeOf(resource),
        parquet.recordRows,
        CREATED_BY,
        options,
      ),
      items:
        resource === SESSION_ITEMS_RESOURCE
          ? parquet.parquetEncoder(
              schema.SESSION_ITEM_SHAPE,
              parquet.sessionItemRows,
              CREATED_BY,
              options,
            )
          : undefined,
    };
  }
  const csv = { raw: settings.csvRaw, bom: settings.bom };
  return {
    main: csvEncoder(columnsOf(resource), csv),
    // Real-call sessions in CSV also get one row per analysis item; JSONL keeps the
    // items inside each record, so it needs no child table.
    items: resource === SESSION_ITEMS_RESOURCE ? sessionItemsEncoder(csv) : undefined,
  };
}

function itemCount(records: readonly ApiRecord[]): number {
  let n = 0;
  for (const record of records) {
    const items = (record.analysis as { items?: unknown } | null | undefined)?.items;
    if (Array.isArray(items)) n += items.length;
  }
  return n;
}

export interface FileResult {
  file: string;
  written: WrittenFile;
  items:
    | { file: string; written: WrittenFile; count: number; parquet: ParquetFileShape | undefined }
    | undefined;
  /** `--format parquet`: row groups and schema. */
  parquet: ParquetFileShape | undefined;
}

/** A file being written and the encoder of its format. */
interface Table {
  out: AtomicFile;
  encoder: PageEncoder;
}

/** One export's files in the output directory, invisible until `commit()`. */
export class FileOutput {
  #itemRows = 0;

  private constructor(
    readonly file: string,
    readonly itemsFile: string,
    private readonly main: Table,
    private readonly items: Table | undefined,
  ) {}

  static async open(dir: string, resource: ExportResource, settings: OutputSettings) {
    const encoders = await encodersOf(resource, settings);
    const file = `${resource}.${settings.format}`;
    const itemsFile = `${SESSION_ITEMS_FILE_STEM}.${settings.format}`;
    const main = { out: await AtomicFile.create(join(dir, file)), encoder: encoders.main };
    let items: Table | undefined;
    try {
      if (encoders.items) {
        items = { out: await AtomicFile.create(join(dir, itemsFile)), encoder: encoders.items };
      }
    } catch (error) {
      await main.out.discard();
      throw error;
    }
    await main.out.write(main.encoder.preamble);
    await items?.out.write(items.encoder.preamble);
    return new FileOutput(file, itemsFile, main, items);
  }

  /** An empty page encodes to nothing in every format, so it needs no case of its own. */
  async writePage(records: readonly ApiRecord[]): Promise<void> {
    const pending = [this.main.out.write(this.main.encoder.encode(records))];
    if (this.items) {
      this.#itemRows += itemCount(records);
      pending.push(this.items.out.write(this.items.encoder.encode(records)));
    }
    await Promise.all(pending);
  }

  /** The encoders' last bytes, fsync + verify; nothing is visible yet. */
  async finish(): Promise<FileResult> {
    const tables = this.items ? [this.main, this.items] : [this.main];
    await Promise.all(tables.map((t) => t.out.write(t.encoder.end?.() ?? '')));
    const written = await this.main.out.finish();
    const items = this.items
      ? {
          file: this.itemsFile,
          written: await this.items.out.finish(),
          count: this.#itemRows,
          parquet: this.items.encoder.parquetShape?.(),
        }
      : undefined;
    return { file: this.file, written, items, parquet: this.main.encoder.parquetShape?.() };
  }

  async commit(): Promise<void> {
    await this.main.out.commit();
    await this.items?.out.commit();
  }

  async discard(): Promise<void> {
    await Promise.all([this.main.out.discard(), this.items?.out.discard()]);
  }
}

/** Where `--out -` streams: any Node writable (process.stdout, a file or socket stream). */
export type WritableLike = NodeJS.WritableStream;

/** Writes honouring backpressure; a closed pipe (`| head`) ends the wait with an error. */
async function writeToStream(stream: WritableLike, chunk: Chunk): Promise<void> {
  if (chunk.length === 0 || stream.write(chunk)) return;
  const ac = new AbortController();
  try {
    await Promise.race([
      once(stream, 'drain', { signal: ac.signal }),
      once(stream, 'close', { signal: ac.signal }).then(() => {
        throw new ExportError('standard output was closed before the export ended');
      }),
      // `once` rejects with the stream's 'error' itself.
    ]);
  } finally {
    ac.abort();
  }
}

/** `--out -`: one export streamed to stdout, for `jq` or a loader (no files, no manifest). */
export class StreamOutput {
  #started = false;

  private constructor(
    private readonly stream: WritableLike,
    private readonly encoder: PageEncoder,
  ) {}

  static async open(stream: WritableLike, resource: ExportResource, settings: OutputSettings) {
    // A stream has room for one table: the child items table exists only in directory mode.
    return new StreamOutput(stream, (await encodersOf(resource, settings)).main);
  }

  async writePage(records: readonly ApiRecord[]): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      await writeToStream(this.stream, this.encoder.preamble);
    }
    await writeToStream(this.stream, this.encoder.encode(records));
  }

  /** An empty export still gets its CSV header (and a Parquet file its footer). */
  async end(): Promise<void> {
    await this.writePage([]);
    await writeToStream(this.stream, this.encoder.end?.() ?? '');
  }
}
