import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { describe, expect, it } from 'vitest';
import { snappyCompressReused } from '../../../src/export/snappy.js';

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function inputs(): [string, Uint8Array][] {
  const next = random(1);
  const text = new TextEncoder().encode(
    Array.from(
      { length: 20_000 },
      (_, i) => `call ${i % 97} said hello ${next() < 0.1 ? i : ''}`,
    ).join(' '),
  );
  const noise = Uint8Array.from({ length: 300_000 }, () => Math.floor(next() * 256));
  const runs = Uint8Array.from({ length: 200_000 }, (_, i) => (i >> 9) & 0xff);
  return [
    ['empty', new Uint8Array(0)],
    ['one byte', Uint8Array.of(7)],
    ['under the 15-byte margin', new TextEncoder().encode('abcabcabcabca')],
    ['just over it', new TextEncoder().encode('abcabcabcabcabcabc')],
    ['text', text],
    ['noise (literals over 64 KB)', noise],
    ['long runs (copies over 64 bytes)', runs],
    [
      'more than 64 KB apart',
      new Uint8Array([...noise.subarray(0, 70_000), ...noise.subarray(0, 70_000)]),
    ],
  ];
}

describe('snappy into a kept buffer', () => {
  it.each(inputs())('%s: the same bytes as hyparquet-writer', (_, input) => {
    expect(
      Buffer.from(snappyCompressReused(input)).equals(Buffer.from(snappyCompress(input))),
    ).toBe(true);
  });

  it('a large input after small ones, then a small one: each result is whole', () => {
    const all = inputs().map(([, input]) => input);
    for (const input of [...all, ...all.reverse()]) {
      const copy = snappyCompressReused(input).slice();
      expect(Buffer.from(copy).equals(Buffer.from(snappyCompress(input)))).toBe(true);
    }
  });
});
