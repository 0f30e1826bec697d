/**
 * The conditions on importing hyparquet-writer's building blocks (parquet-library.ts): the
 * version pinned exactly and each building block still doing what the writer relies on. An
 * upgrade that changes one of them fails here, naming the module: check what changed before
 * moving the pin. (That every such import is in the adapter is biome.json's noRestrictedImports.)
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ByteWriter,
  type ColumnChunk,
  HYPARQUET_WRITER_USES,
  HYPARQUET_WRITER_VERSION,
  writeIndexes,
  writeMetadata,
  writePageHeader,
  writeRleBitPackedHybrid,
} from '../../src/formats/parquet-library.js';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = join(PACKAGE, '../..');
const ADAPTER = 'parquet-library.ts';

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const hex = (writer: ByteWriter) => Buffer.from(writer.getBytes()).toString('hex');
const changed = (module: keyof typeof HYPARQUET_WRITER_USES, what: string) =>
  `${module} (${what}) changed since hyparquet-writer ${HYPARQUET_WRITER_VERSION}: the Parquet writer (packages/export/src/formats/${ADAPTER}) depends on it`;

describe('hyparquet-writer is pinned', () => {
  it('package.json, the lock file and node_modules all name the version the adapter was checked against', () => {
    const declared = json(join(PACKAGE, 'package.json')).dependencies['hyparquet-writer'];
    expect(declared, 'packages/export/package.json must pin hyparquet-writer exactly').toBe(
      HYPARQUET_WRITER_VERSION,
    );
    const lock = json(join(ROOT, 'package-lock.json'));
    expect(lock.packages['node_modules/hyparquet-writer'].version).toBe(HYPARQUET_WRITER_VERSION);
    expect(json(join(ROOT, 'node_modules/hyparquet-writer/package.json')).version).toBe(
      HYPARQUET_WRITER_VERSION,
    );
  });

  it('the library still declares ./src/*.js in its exports', () => {
    const exports = json(join(ROOT, 'node_modules/hyparquet-writer/package.json')).exports;
    expect(exports['./src/*.js'], 'hyparquet-writer no longer exports ./src/*.js').toBeDefined();
  });

  it.each(Object.entries(HYPARQUET_WRITER_USES))('%s still exports %j', async (module, names) => {
    const exported = (await import(module)) as Record<string, unknown>;
    for (const name of names) {
      expect(typeof exported[name], `${module} no longer exports ${name}`).toBe('function');
    }
  });
});

describe('each building block writes the bytes the writer relies on', () => {
  it('ByteWriter: grows, counts offset, little-endian', () => {
    const writer = new ByteWriter(2);
    writer.appendUint32(0x31524150);
    writer.appendVarInt(300);
    writer.appendUint8(7);
    expect(hex(writer), changed('hyparquet-writer/src/bytewriter.js', 'ByteWriter')).toBe(
      '50415231ac0207',
    );
    expect(writer.offset).toBe(7);
  });

  it('writeRleBitPackedHybrid: a run, then bit-packed values, no length prefix', () => {
    const writer = new ByteWriter();
    const levels = new Uint8Array([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 2, 3]);
    const n = writeRleBitPackedHybrid(writer, levels, 2);
    const message = changed('hyparquet-writer/src/encoding.js', 'writeRleBitPackedHybrid');
    expect(hex(writer), message).toBe('140103e400');
    expect(n, message).toBe(5);
  });

  it('writePageHeader: a data page v2 and a dictionary page header', () => {
    const message = changed('hyparquet-writer/src/datapage.js', 'writePageHeader');
    const data = new ByteWriter();
    writePageHeader(data, {
      type: 'DATA_PAGE_V2',
      uncompressed_page_size: 100,
      compressed_page_size: 80,
      data_page_header_v2: {
        num_values: 10,
        num_nulls: 2,
        num_rows: 5,
        encoding: 'RLE_DICTIONARY',
        definition_levels_byte_length: 3,
        repetition_levels_byte_length: 4,
        is_compressed: true,
      },
    });
    expect(hex(data), message).toBe('150615c80115a0015c15141504150a1510150615080000');
    const dictionary = new ByteWriter();
    writePageHeader(dictionary, {
      type: 'DICTIONARY_PAGE',
      uncompressed_page_size: 20,
      compressed_page_size: 18,
      dictionary_page_header: { num_values: 3, encoding: 'PLAIN' },
    });
    expect(hex(dictionary), message).toBe('1504152815244c150615000000');
  });

  const chunk = (): ColumnChunk => ({
    file_offset: 4n,
    meta_data: {
      type: 'BYTE_ARRAY',
      encodings: ['PLAIN', 'RLE_DICTIONARY'],
      path_in_schema: ['name'],
      codec: 'SNAPPY',
      num_values: 2n,
      total_uncompressed_size: 50n,
      total_compressed_size: 40n,
      data_page_offset: 24n,
      dictionary_page_offset: 4n,
      statistics: { min_value: 'Zoë', max_value: '😀', null_count: 0n },
      encoding_stats: [
        { page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 },
        { page_type: 'DATA_PAGE_V2', encoding: 'RLE_DICTIONARY', count: 2 },
      ],
    },
  });

  it('writeIndexes: an offset index at the writer offset, noted in the chunk', () => {
    const message = changed('hyparquet-writer/src/indexes.js', 'writeIndexes');
    const writer = new ByteWriter();
    writer.offset = 1000;
    const column = chunk();
    const page_locations = [
      { offset: 24n, compressed_page_size: 10, first_row_index: 0n },
      { offset: 34n, compressed_page_size: 10, first_row_index: 1n },
    ];
    writeIndexes(writer, [{ chunk: column, offsetIndex: { page_locations } }]);
    expect(hex(writer), message).toBe('192c163015141600001644151416020000');
    expect([column.offset_index_offset, column.offset_index_length], message).toEqual([1000n, 17]);
  });

  it('writeMetadata: schema, row groups, statistics and the footer length', () => {
    const writer = new ByteWriter();
    writeMetadata(writer, {
      version: 2,
      created_by: 'test',
      schema: [
        { name: 'root', num_children: 2 },
        {
          name: 'name',
          type: 'BYTE_ARRAY',
          repetition_type: 'REQUIRED',
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
        },
        {
          name: 'at',
          type: 'INT64',
          repetition_type: 'OPTIONAL',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
      ],
      num_rows: 2n,
      row_groups: [
        { columns: [chunk()], total_byte_size: 50n, num_rows: 2n, total_compressed_size: 40n },
      ],
    } as Parameters<typeof writeMetadata>[1]);
    expect(hex(writer), changed('hyparquet-writer/src/metadata.js', 'writeMetadata')).toBe(
      '1504193c4804726f6f74150400150c250018046e616d6525004c1c000000150425021802617425124c8c111c1c00000000001604191c191c26081c150c192500101918046e616d651502160416641650263026081c36002804f09f988018045a6fc3ab00192c1504150015020015061510150400000016641604365000280474657374192c1c00001c0000008c000000',
    );
  });
});
