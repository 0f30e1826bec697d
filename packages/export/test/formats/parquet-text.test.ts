/**
 * Text is written as UTF-8 straight into the leaf's buffers (the dictionary's, and a PLAIN
 * page's once the dictionary is given up): a value whose UTF-8 takes three bytes a character,
 * the most a UTF-16 unit can take, reads back whole, first in an empty buffer or after others.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import type { RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

const TEXT: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [{ name: 'v', shape: { type: 'string', nullable: false } }],
};

async function readsBackEqual(values: string[]): Promise<void> {
  const records: ApiRecord[] = values.map((v, i) => ({ id: `r${i}`, v }));
  const encoder = parquetEncoder(TEXT, recordRows, 'test', { compression: 'none' });
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += 100) {
    chunks.push(encoder.encode(records.slice(i, i + 100)));
  }
  chunks.push(encoder.end!());
  const rows = await readWithHyparquetBytes(Buffer.concat(chunks));
  expect(rows.map(actualRow)).toEqual(records.map((r) => expectedRow(r, TEXT)));
}

// 4 bytes of length and 4,095 of text: just past the 4 KiB a buffer starts with.
const euros = (n: number) => '€'.repeat(n);

describe('three-byte characters fill the buffers exactly', () => {
  it('the first value of the dictionary', async () => {
    await readsBackEqual([euros(1_365), euros(1_364), 'a']);
  });

  it('the first value of a PLAIN page, after the dictionary was given up', async () => {
    const distinct = Array.from({ length: 1_024 }, (_, i) => `d${i}`);
    await readsBackEqual([...distinct, euros(1_365), euros(1_365), euros(2_731)]);
  });
});
