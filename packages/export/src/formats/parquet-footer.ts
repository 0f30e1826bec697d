/**
 * The Parquet footer (FileMetaData), kept as bytes while the file is written (issue 13's flat
 * memory). hyparquet-writer keeps every row group's metadata as objects until `finish()`: about
 * 900 bytes of V8 heap per column chunk, 13.5 MB for the 15,500 chunks of a million-record
 * `rcs export all`, growing with the export. Here each row group is serialized (Thrift compact
 * protocol, as the library does it) the moment it is written, ~100 bytes a chunk, and `finish`
 * writes FileMetaData around those bytes. The output is the library's byte for byte (tested
 * against ParquetWriter in parquet-columns.test.ts).
 *
 * The mapping from metadata objects to Thrift field ids follows hyparquet-writer 0.17's
 * `writeMetadata` (src/metadata.js) for the fields this CLI's files use; page indexes, bloom
 * filters and key-value metadata are not written (see parquet-encoder.ts).
 */
import {
  CompressionCodecs,
  ConvertedTypes,
  Encodings,
  FieldRepetitionTypes,
  PageTypes,
  ParquetTypes,
} from 'hyparquet/src/constants.js';
import { ByteWriter } from 'hyparquet-writer';
import { logicalType } from 'hyparquet-writer/src/metadata.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { unconvertStatistics } from 'hyparquet-writer/src/unconvert.js';

type Schema = Parameters<typeof schemaPathResolver>[0];
type SchemaElement = Schema[number];
type ThriftObject = Parameters<typeof serializeTCompactProtocol>[1];

/** A row group as hyparquet-writer builds it (ParquetWriter's `row_groups` entries). */
export interface RowGroupMeta {
  columns: {
    file_path?: string | undefined;
    file_offset: bigint;
    meta_data?: {
      type: string;
      encodings: string[];
      path_in_schema: string[];
      codec: string;
      num_values: bigint;
      total_uncompressed_size: bigint;
      total_compressed_size: bigint;
      data_page_offset: bigint;
      dictionary_page_offset?: bigint | undefined;
      statistics?: object | undefined;
      encoding_stats?: { page_type: string; encoding: string; count: number }[] | undefined;
      size_statistics?:
        | {
            unencoded_byte_array_data_bytes?: bigint | undefined;
            repetition_level_histogram?: bigint[] | undefined;
            definition_level_histogram?: bigint[] | undefined;
          }
        | undefined;
    };
  }[];
  total_byte_size: bigint;
  num_rows: bigint;
  total_compressed_size: bigint;
}

// Thrift compact protocol: field header = (field id delta << 4) | type.
const I32 = 5;
const I64 = 6;
const BINARY = 8;
const LIST = 9;
const STRUCT = 12;
const STOP = 0;
const MAGIC = 0x31524150; // "PAR1"

export class ParquetFooter {
  readonly #schema: Schema;
  readonly #element: (path: string[]) => SchemaElement;
  readonly #truncate: number | undefined;
  /** The serialized RowGroup structs so far. */
  readonly #groups = new ByteWriter();
  #count = 0;

  constructor(schema: Schema, statisticsTruncateLength?: number) {
    this.#schema = schema;
    const resolve = schemaPathResolver(schema);
    this.#element = (path) => {
      const tree = resolve(path);
      return tree[tree.length - 1]!.element;
    };
    this.#truncate = statisticsTruncateLength;
  }

  /** Serializes one written row group; the objects can then be dropped. */
  add(group: RowGroupMeta): void {
    serializeTCompactProtocol(this.#groups, this.#rowGroup(group));
    this.#count++;
  }

  /** FileMetaData, its length and the closing magic, appended to `writer`. */
  finish(writer: ByteWriter, numRows: bigint, createdBy: string | undefined): void {
    const start = writer.offset;
    // field 1: version
    writer.appendUint8((1 << 4) | I32);
    writer.appendZigZag(2);
    // field 2: schema
    writer.appendUint8((1 << 4) | LIST);
    listHeader(writer, this.#schema.length, STRUCT);
    for (const element of this.#schema) serializeTCompactProtocol(writer, schemaElement(element));
    // field 3: num_rows
    writer.appendUint8((1 << 4) | I64);
    writer.appendZigZag(numRows);
    // field 4: row_groups, as serialized
    writer.appendUint8((1 << 4) | LIST);
    listHeader(writer, this.#count, STRUCT);
    writer.appendBytes(new Uint8Array(this.#groups.buffer, 0, this.#groups.index));
    // field 6: created_by (no field 5, key_value_metadata)
    let last = 4;
    if (createdBy !== undefined) {
      writer.appendUint8(((6 - last) << 4) | BINARY);
      const bytes = new TextEncoder().encode(createdBy);
      writer.appendVarInt(bytes.byteLength);
      writer.appendBytes(bytes);
      last = 6;
    }
    // field 7: column_orders, TypeDefinedOrder for every leaf
    const leaves = this.#schema.filter((e) => e.type);
    writer.appendUint8(((7 - last) << 4) | LIST);
    listHeader(writer, leaves.length, STRUCT);
    for (const _ of leaves) serializeTCompactProtocol(writer, { field_1: {} });
    writer.appendUint8(STOP);
    writer.appendUint32(writer.offset - start);
    writer.appendUint32(MAGIC);
  }

  #rowGroup(rg: RowGroupMeta): ThriftObject {
    return {
      field_1: rg.columns.map((c) => ({
        field_1: c.file_path,
        field_2: c.file_offset,
        field_3: c.meta_data && {
          field_1: ParquetTypes.indexOf(c.meta_data.type as never),
          field_2: c.meta_data.encodings.map((e) => Encodings.indexOf(e as never)),
          field_3: c.meta_data.path_in_schema,
          field_4: CompressionCodecs.indexOf(c.meta_data.codec as never),
          field_5: c.meta_data.num_values,
          field_6: c.meta_data.total_uncompressed_size,
          field_7: c.meta_data.total_compressed_size,
          field_9: c.meta_data.data_page_offset,
          field_11: c.meta_data.dictionary_page_offset,
          field_12:
            c.meta_data.statistics &&
            unconvertStatistics(
              c.meta_data.statistics as never,
              this.#element(c.meta_data.path_in_schema),
              this.#truncate,
            ),
          field_13: c.meta_data.encoding_stats?.map((es) => ({
            field_1: PageTypes.indexOf(es.page_type as never),
            field_2: Encodings.indexOf(es.encoding as never),
            field_3: es.count,
          })),
          field_16: c.meta_data.size_statistics && {
            field_1: c.meta_data.size_statistics.unencoded_byte_array_data_bytes,
            field_2: c.meta_data.size_statistics.repetition_level_histogram,
            field_3: c.meta_data.size_statistics.definition_level_histogram,
          },
        },
      })),
      field_2: rg.total_byte_size,
      field_3: rg.num_rows,
      field_6: rg.total_compressed_size,
    } as ThriftObject;
  }
}

function schemaElement(element: SchemaElement): ThriftObject {
  return {
    field_1: element.type && ParquetTypes.indexOf(element.type),
    field_2: element.type_length,
    field_3: element.repetition_type && FieldRepetitionTypes.indexOf(element.repetition_type),
    field_4: element.name,
    field_5: element.num_children,
    field_6: element.converted_type && ConvertedTypes.indexOf(element.converted_type),
    field_7: element.scale,
    field_8: element.precision,
    field_9: element.field_id,
    field_10: logicalType(element.logical_type),
  } as ThriftObject;
}

/** As the library writes it: an empty list has element type 0 (it guesses the type from items). */
function listHeader(writer: ByteWriter, size: number, itemType: number): void {
  const type = size === 0 ? 0 : itemType;
  if (size > 14) {
    writer.appendUint8((15 << 4) | type);
    writer.appendVarInt(size);
  } else {
    writer.appendUint8((size << 4) | type);
  }
}
