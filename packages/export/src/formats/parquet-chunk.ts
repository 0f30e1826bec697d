/**
 * One leaf column of a Parquet row group while it fills (D27's streaming writer): values go
 * straight into buffers as rows arrive, and leave them as compressed pages.
 *
 * - strings as UTF-8 written into a growing buffer, already in PLAIN form (a 4-byte length, the
 *   bytes); numbers, date-times (milliseconds) and booleans in typed arrays; definition and
 *   repetition levels in Uint8Arrays. No JavaScript value outlives its page, but the
 *   dictionary's.
 * - Dictionary encoding, with the fallback parquet-java and arrow-rs use: the leaf starts with a
 *   dictionary and writes PLAIN from the next page on when the dictionary passes
 *   `dictionaryLimit` bytes (1 MiB), or when, after the first DICTIONARY_CHECK values, the
 *   dictionary and its indices would not be smaller than the PLAIN values (mostly distinct
 *   values). Booleans and doubles are always PLAIN.
 * - A page closes at about `pageSize` bytes of values, only at a row boundary (the encoder calls
 *   `closePage` between rows; data page v2 needs whole rows in a page), and is compressed as it
 *   closes and kept with the chunk's other pages. At the group's end, `finish` gives the
 *   dictionary page and the data pages, with the column chunk's footer entry: statistics (min,
 *   max, null count, NaN count for doubles), encodings and the offset index.
 *
 * The page and footer structures are hyparquet-writer's, through parquet-library.ts.
 */
import type { Compress } from './parquet-compression.js';
import {
  ByteWriter,
  type ColumnChunk,
  type CompressionCodec,
  type Encoding,
  type PageIndexes,
  writePageHeader,
  writeRleBitPackedHybrid,
} from './parquet-library.js';

export type LeafKind = 'string' | 'int64' | 'timestamp' | 'double' | 'boolean';

const PHYSICAL = {
  string: 'BYTE_ARRAY',
  int64: 'INT64',
  timestamp: 'INT64',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
} as const;

export interface ChunkSettings {
  codec: CompressionCodec;
  compress: Compress | undefined;
  /** A page closes at the first row boundary at or past this many bytes of values. */
  pageSize: number;
  /** A dictionary larger than this (PLAIN bytes) is given up for PLAIN pages. */
  dictionaryLimit: number;
}

/** The row group's uncompressed value bytes (D27's group bound), shared by its leaves. */
export interface GroupSize {
  bytes: number;
}

/** Values seen before the "mostly distinct" check (parquet-java checks at its first page). */
const DICTIONARY_CHECK = 1024;

/** Bits a value up to `max` takes (0 for 0). */
function bitWidth(max: number): number {
  return 32 - Math.clz32(max);
}

function grownBytes(buffer: Buffer, need: number): Buffer {
  // Stryker disable next-line EqualityOperator: growing one call early writes the same bytes.
  if (need <= buffer.length) return buffer;
  const next = Buffer.allocUnsafe(Math.max(need, buffer.length * 2));
  buffer.copy(next);
  return next;
}

/** `buffer`, or a copy twice as long when `need` does not fit: the arrays below grow one value at a time. */
function grown<T extends Uint8Array | Int32Array | Float64Array>(buffer: T, need: number): T {
  // Stryker disable next-line EqualityOperator: growing one call early writes the same bytes.
  if (need <= buffer.length) return buffer;
  const next = new (buffer.constructor as new (length: number) => T)(buffer.length * 2);
  next.set(buffer);
  return next;
}

/**
 * Code point order (what UTF-8 bytes compare as, and what Parquet's statistics of a string
 * mean). JavaScript's `<` compares UTF-16 units, which puts a character past U+FFFF (a
 * surrogate pair) before U+E000..U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitOrder(x) - unitOrder(y);
  }
  return a.length - b.length;
}

/** Surrogates after the rest of the BMP, as the code points they encode are. */
function unitOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/** Little-endian INT64 values (safe integers) as PLAIN bytes, without BigInts. */
function int64Bytes(values: Float64Array, count: number): Uint8Array {
  const out = new Uint8Array(count * 8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    const value = values[i]!;
    const high = Math.floor(value / 4294967296);
    view.setUint32(i * 8, value - high * 4294967296, true);
    view.setInt32(i * 8 + 4, high, true);
  }
  return out;
}

function doubleBytes(values: Float64Array, count: number): Uint8Array {
  const out = new Uint8Array(count * 8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i++) view.setFloat64(i * 8, values[i]!, true);
  return out;
}

/** PLAIN booleans: one bit each, the first in the lowest bit. */
function booleanBytes(values: Uint8Array, count: number): Uint8Array {
  const out = new Uint8Array((count + 7) >> 3);
  // Stryker disable next-line EqualityOperator: a bit past the last value is padding no reader reads (or past the array, where a typed array ignores it).
  for (let i = 0; i < count; i++) if (values[i]) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

interface PageLocation {
  /** From the start of the chunk's data pages (made absolute by `finish`). */
  offset: number;
  size: number;
  firstRow: number;
}

export class LeafChunk {
  readonly maxDef: number;
  readonly maxRep: number;
  #queued = false;

  // The page being filled.
  #def: Uint8Array = new Uint8Array(1024);
  #rep: Uint8Array = new Uint8Array(1024);
  /** Level entries (values and nulls) in the page. */
  #levels = 0;
  /** Values (not nulls) in the page. */
  #values = 0;
  #rows = 0;
  #pageBytes = 0;
  #text: Buffer = Buffer.allocUnsafe(4096);
  #textLength = 0;
  #numbers: Float64Array = new Float64Array(256);
  #booleans: Uint8Array = new Uint8Array(256);
  #indices: Int32Array = new Int32Array(256);

  // The dictionary of the chunk.
  #dictionary: boolean;
  #fallback = false;
  #checked = false;
  #strings = new Map<string, number>();
  #stringLengths: Int32Array = new Int32Array(256);
  #keys = new Map<number, number>();
  #dictionaryNumbers: Float64Array = new Float64Array(256);
  #dictionaryText: Buffer = Buffer.allocUnsafe(4096);
  #dictionaryLength = 0;
  #dictionarySize = 0;
  /** PLAIN bytes of the dictionary's values, and of all values written with it. */
  #dictionaryBytes = 0;
  #dictionaryValueBytes = 0;
  #dictionaryValues = 0;

  // The chunk's pages and what its footer entry says.
  #parts: Uint8Array[] = [];
  #partsBytes = 0;
  #uncompressed = 0;
  #locations: PageLocation[] = [];
  #dictionaryPages = 0;
  #plainPages = 0;
  #chunkRows = 0;
  #chunkLevels = 0;
  #chunkValues = 0;
  #min: string | number | boolean | undefined;
  #max: string | number | boolean | undefined;
  #nans = 0;

  constructor(
    readonly path: readonly string[],
    readonly kind: LeafKind,
    levels: { maxDef: number; maxRep: number },
    private readonly settings: ChunkSettings,
    private readonly size: GroupSize,
    private readonly ready: LeafChunk[],
  ) {
    this.maxDef = levels.maxDef;
    this.maxRep = levels.maxRep;
    this.#dictionary = this.#usesDictionary();
  }

  #usesDictionary(): boolean {
    return this.kind !== 'boolean' && this.kind !== 'double';
  }

  #level(def: number, rep: number): void {
    const at = this.#levels++;
    // Kept even where the maximum is 0 (a page then writes none): one byte each, and no branch.
    this.#def = grown(this.#def, at + 1);
    this.#def[at] = def;
    this.#rep = grown(this.#rep, at + 1);
    this.#rep[at] = rep;
    if (rep === 0) this.#rows++;
  }

  #queue(): void {
    // Stryker disable next-line ConditionalExpression: a leaf queued twice is closed twice, and the second close finds no levels to write.
    if (this.#queued) return;
    // Stryker disable next-line BooleanLiteral: as above.
    this.#queued = true;
    this.ready.push(this);
  }

  /** A null or missing value (or an empty or null list) at these levels. */
  addNull(def: number, rep: number): void {
    this.#level(def, rep);
    // A byte of levels, so that a column of nulls still closes its pages (a group may hold up to
    // --row-group-rows' 100,000,000 rows).
    this.#pageBytes += 1;
    if (this.#pageBytes >= this.settings.pageSize) this.#queue();
  }

  addString(value: string, def: number, rep: number): void {
    this.#level(def, rep);
    if (this.#dictionary) {
      let index = this.#strings.get(value);
      if (index === undefined) index = this.#addStringEntry(value);
      const length = this.#stringLengths[index]!;
      this.size.bytes += length + 4;
      this.#indexed(index, length + 4);
      return;
    }
    const at = this.#textLength;
    this.#text = grownBytes(this.#text, at + 4 + value.length * 3);
    const length = this.#text.write(value, at + 4);
    this.#text.writeUInt32LE(length, at);
    this.#textLength = at + 4 + length;
    this.size.bytes += length + 4;
    this.#stringStatistics(value);
    this.#valued(length + 4);
  }

  #addStringEntry(value: string): number {
    const index = this.#dictionarySize++;
    const at = this.#dictionaryLength;
    this.#dictionaryText = grownBytes(this.#dictionaryText, at + 4 + value.length * 3);
    const length = this.#dictionaryText.write(value, at + 4);
    this.#dictionaryText.writeUInt32LE(length, at);
    this.#dictionaryLength = at + 4 + length;
    this.#stringLengths = grown(this.#stringLengths, index + 1);
    this.#stringLengths[index] = length;
    this.#strings.set(value, index);
    this.#dictionaryBytes += length + 4;
    this.#stringStatistics(value);
    return index;
  }

  #stringStatistics(value: string): void {
    const min = this.#min as string | undefined;
    if (min === undefined) {
      this.#min = value;
      this.#max = value;
      return;
    }
    // A new minimum is never a new maximum: two checks, each on its own line (for the marks).
    // Stryker disable next-line EqualityOperator: an equal value replaces itself.
    if (compareCodePoints(value, min) < 0) this.#min = value;
    // Stryker disable next-line EqualityOperator: as above.
    if (compareCodePoints(value, this.#max as string) > 0) this.#max = value;
  }

  /** An INT64, a date-time's milliseconds or a double. */
  addNumber(value: number, def: number, rep: number): void {
    this.#level(def, rep);
    this.size.bytes += 8;
    if (this.#dictionary) {
      let index = this.#keys.get(value);
      if (index === undefined) {
        index = this.#dictionarySize++;
        this.#dictionaryNumbers = grown(this.#dictionaryNumbers, index + 1);
        this.#dictionaryNumbers[index] = value;
        this.#keys.set(value, index);
        this.#dictionaryBytes += 8;
        this.#numberStatistics(value);
      }
      this.#indexed(index, 8);
      return;
    }
    this.#numbers = grown(this.#numbers, this.#values + 1);
    this.#numbers[this.#values] = value;
    this.#numberStatistics(value);
    this.#valued(8);
  }

  #numberStatistics(value: number): void {
    if (Number.isNaN(value)) {
      this.#nans++;
      return;
    }
    const min = this.#min as number | undefined;
    if (min === undefined) {
      this.#min = value;
      this.#max = value;
      return;
    }
    // Stryker disable next-line EqualityOperator: an equal value replaces itself (zeros of either sign are settled by #statistics).
    if (value < min) this.#min = value;
    // Stryker disable next-line EqualityOperator: as above.
    if (value > (this.#max as number)) this.#max = value;
  }

  addBoolean(value: boolean, def: number, rep: number): void {
    this.#level(def, rep);
    this.size.bytes += 1;
    this.#booleans = grown(this.#booleans, this.#values + 1);
    this.#booleans[this.#values] = value ? 1 : 0;
    if (this.#min === undefined) {
      this.#min = value;
      this.#max = value;
    } else if (!value) {
      this.#min = false;
    } else {
      this.#max = true;
    }
    this.#valued(1);
  }

  /** A value written as its dictionary index; `plain` is its PLAIN size. */
  #indexed(index: number, plain: number): void {
    this.#indices = grown(this.#indices, this.#values + 1);
    this.#indices[this.#values] = index;
    this.#dictionaryValueBytes += plain;
    this.#dictionaryValues++;
    if (this.#dictionaryBytes > this.settings.dictionaryLimit) this.#giveUpDictionary();
    else if (!this.#checked && this.#dictionaryValues >= DICTIONARY_CHECK) {
      this.#checked = true;
      const indexBytes = Math.ceil((this.#dictionaryValues * bitWidth(this.#dictionarySize)) / 8);
      if (this.#dictionaryBytes + indexBytes >= this.#dictionaryValueBytes) {
        this.#giveUpDictionary();
      }
    }
    // An index is 4 bytes while the page fills.
    this.#valued(4);
  }

  /** PLAIN from the next page on; this page closes at the end of the row. */
  #giveUpDictionary(): void {
    this.#fallback = true;
    this.#queue();
  }

  #valued(bytes: number): void {
    this.#values++;
    this.#pageBytes += bytes;
    if (this.#pageBytes >= this.settings.pageSize) this.#queue();
  }

  /** Closes the page (at a row boundary: the encoder calls this between rows only). */
  closePage(): void {
    this.#queued = false;
    if (this.#levels > 0) this.#writePage();
    if (this.#fallback) {
      this.#fallback = false;
      this.#dictionary = false;
    }
  }

  #pageValues(): { encoding: Encoding; body: Uint8Array } {
    const count = this.#values;
    // A page of nulls only has no values to index: PLAIN, and no dictionary page for it.
    if (this.#dictionary && count > 0) {
      // Values were indexed, so the dictionary holds at least one.
      // Stryker disable next-line ArithmeticOperator: a wider index reads back the same indices.
      const width = bitWidth(this.#dictionarySize - 1);
      // Stryker disable next-line MethodExpression,ArithmeticOperator: a first size; ByteWriter grows.
      const writer = new ByteWriter(Math.max(64, (count * width) >> 2));
      writer.appendUint8(width);
      writeRleBitPackedHybrid(writer, this.#indices.subarray(0, count), width);
      return { encoding: 'RLE_DICTIONARY', body: writer.getBytes() };
    }
    switch (this.kind) {
      case 'string':
        return { encoding: 'PLAIN', body: this.#text.subarray(0, this.#textLength) };
      case 'double':
        return { encoding: 'PLAIN', body: doubleBytes(this.#numbers, count) };
      case 'boolean':
        return { encoding: 'PLAIN', body: booleanBytes(this.#booleans, count) };
      default:
        return { encoding: 'PLAIN', body: int64Bytes(this.#numbers, count) };
    }
  }

  #writePage(): void {
    const { encoding, body } = this.#pageValues();
    const { compress, codec } = this.settings;
    // Uncompressed, the body may be this leaf's buffer, which the next page reuses: copied (a
    // Buffer's slice() would share its memory).
    const compressed = compress ? compress(body) : new Uint8Array(body);
    // Stryker disable next-line MethodExpression,ArithmeticOperator: a first size; ByteWriter grows.
    const levels = new ByteWriter(Math.max(64, this.#levels >> 2));
    const count = this.#levels;
    const repetitionBytes =
      this.maxRep > 0
        ? writeRleBitPackedHybrid(levels, this.#rep.subarray(0, count), bitWidth(this.maxRep))
        : 0;
    const definitionBytes =
      this.maxDef > 0
        ? writeRleBitPackedHybrid(levels, this.#def.subarray(0, count), bitWidth(this.maxDef))
        : 0;
    const header = new ByteWriter(64);
    writePageHeader(header, {
      type: 'DATA_PAGE_V2',
      uncompressed_page_size: levels.offset + body.length,
      compressed_page_size: levels.offset + compressed.length,
      data_page_header_v2: {
        num_values: count,
        num_nulls: count - this.#values,
        num_rows: this.#rows,
        encoding,
        definition_levels_byte_length: definitionBytes,
        repetition_levels_byte_length: repetitionBytes,
        is_compressed: codec !== 'UNCOMPRESSED',
      },
    });
    const size = header.offset + levels.offset + compressed.length;
    this.#locations.push({ offset: this.#partsBytes, size, firstRow: this.#chunkRows });
    this.#parts.push(header.getBytes(), levels.getBytes(), compressed);
    this.#partsBytes += size;
    this.#uncompressed += header.offset + levels.offset + body.length;
    if (encoding === 'PLAIN') this.#plainPages++;
    else this.#dictionaryPages++;
    this.#chunkRows += this.#rows;
    this.#chunkLevels += count;
    this.#chunkValues += this.#values;
    this.#levels = 0;
    this.#values = 0;
    this.#rows = 0;
    this.#pageBytes = 0;
    this.#textLength = 0;
  }

  /** The dictionary page (header and compressed PLAIN values), or none. */
  #dictionaryPage(): Uint8Array[] {
    if (this.#dictionaryPages === 0) return [];
    const body =
      this.kind === 'string'
        ? this.#dictionaryText.subarray(0, this.#dictionaryLength)
        : int64Bytes(this.#dictionaryNumbers, this.#dictionarySize);
    // Copied, as a data page's: the next row group's dictionary reuses the buffer.
    const compressed = this.settings.compress ? this.settings.compress(body) : new Uint8Array(body);
    const header = new ByteWriter(64);
    writePageHeader(header, {
      type: 'DICTIONARY_PAGE',
      uncompressed_page_size: body.length,
      compressed_page_size: compressed.length,
      dictionary_page_header: { num_values: this.#dictionarySize, encoding: 'PLAIN' },
    });
    this.#uncompressed += header.offset + body.length;
    return [header.getBytes(), compressed];
  }

  /**
   * The chunk, written at `fileOffset`: its pages (dictionary first) and its footer entry with
   * the offset index. The leaf is then empty, ready for the next row group.
   */
  finish(fileOffset: number): { parts: Uint8Array[]; index: PageIndexes } {
    this.closePage();
    const dictionary = this.#dictionaryPage();
    let dictionaryBytes = 0;
    for (const part of dictionary) dictionaryBytes += part.length;
    const dataOffset = fileOffset + dictionaryBytes;
    const encodings: Encoding[] = ['PLAIN'];
    const stats: {
      page_type: 'DICTIONARY_PAGE' | 'DATA_PAGE_V2';
      encoding: Encoding;
      count: number;
    }[] = [];
    if (this.#dictionaryPages > 0) {
      encodings.push('RLE_DICTIONARY');
      stats.push({ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 });
      stats.push({
        page_type: 'DATA_PAGE_V2',
        encoding: 'RLE_DICTIONARY',
        count: this.#dictionaryPages,
      });
    }
    if (this.#plainPages > 0) {
      stats.push({ page_type: 'DATA_PAGE_V2', encoding: 'PLAIN', count: this.#plainPages });
    }
    const chunk: ColumnChunk = {
      file_offset: BigInt(fileOffset),
      meta_data: {
        type: PHYSICAL[this.kind],
        encodings,
        path_in_schema: [...this.path],
        codec: this.settings.codec,
        num_values: BigInt(this.#chunkLevels),
        total_uncompressed_size: BigInt(this.#uncompressed),
        total_compressed_size: BigInt(dictionaryBytes + this.#partsBytes),
        data_page_offset: BigInt(dataOffset),
        dictionary_page_offset: dictionary.length > 0 ? BigInt(fileOffset) : undefined,
        statistics: this.#statistics(),
        encoding_stats: stats,
      },
    };
    const index: PageIndexes = {
      chunk,
      offsetIndex: {
        page_locations: this.#locations.map((p) => ({
          offset: BigInt(dataOffset + p.offset),
          compressed_page_size: p.size,
          first_row_index: BigInt(p.firstRow),
        })),
      },
    };
    const parts = [...dictionary, ...this.#parts];
    this.#reset();
    return { parts, index };
  }

  #statistics() {
    let min = this.#min;
    let max = this.#max;
    // Parquet's rule for signed zeros: a minimum of zero is -0, a maximum is +0.
    if (min === 0) min = -0;
    if (max === 0) max = 0;
    return {
      min_value: min,
      max_value: max,
      null_count: BigInt(this.#chunkLevels - this.#chunkValues),
      nan_count: this.kind === 'double' ? BigInt(this.#nans) : undefined,
    };
  }

  #reset(): void {
    this.#parts = [];
    this.#partsBytes = 0;
    this.#uncompressed = 0;
    this.#locations = [];
    this.#dictionaryPages = 0;
    this.#plainPages = 0;
    this.#chunkRows = 0;
    this.#chunkLevels = 0;
    this.#chunkValues = 0;
    this.#min = undefined;
    this.#max = undefined;
    this.#nans = 0;
    this.#dictionary = this.#usesDictionary();
    this.#checked = false;
    this.#strings = new Map();
    this.#keys = new Map();
    this.#dictionaryLength = 0;
    this.#dictionarySize = 0;
    this.#dictionaryBytes = 0;
    this.#dictionaryValueBytes = 0;
    this.#dictionaryValues = 0;
  }
}
