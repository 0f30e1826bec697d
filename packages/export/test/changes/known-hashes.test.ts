import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownHashes } from '../../src/changes/known-hashes.js';

/** A content hash as changes.ts makes them: SHA-256, base64url, 22 characters. */
const hashOf = (text: string): string =>
  createHash('sha256').update(text).digest('base64url').slice(0, 22);

describe('KnownHashes', () => {
  it('has every hash added, through growth, and none other; 16 bytes a slot, at most 3/4 full', () => {
    const known = new KnownHashes();
    const added = Array.from({ length: 50_000 }, (_, i) => hashOf(`record ${i}`));
    for (const hash of added) known.add(hash);
    expect(known.size).toBe(50_000);
    expect(added.every((h) => known.has(h))).toBe(true);
    const others = Array.from({ length: 5_000 }, (_, i) => hashOf(`other ${i}`));
    expect(others.filter((h) => known.has(h))).toEqual([]);
    // All zero words: what an empty slot would hold if growing moved empty slots as entries.
    expect(known.has('AAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
    // EXPORT.md's figure: at most 3/4 full, and at most twice that after a doubling.
    expect(known.bytes).toBeGreaterThanOrEqual((50_000 * 16 * 4) / 3);
    expect(known.bytes).toBeLessThanOrEqual((2 * 50_000 * 16 * 4) / 3);
  });

  it('adding a hash twice keeps one', () => {
    const known = new KnownHashes();
    known.add(hashOf('a'));
    known.add(hashOf('a'));
    expect(known.size).toBe(1);
  });

  it('tells apart hashes that differ in any of their first 20 characters (property)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const hash = fc
      .array(fc.constantFrom(...alphabet), { minLength: 22, maxLength: 22 })
      .map((c) => c.join(''));
    fc.assert(
      fc.property(
        hash,
        fc.integer({ min: 0, max: 19 }),
        fc.integer({ min: 1, max: 63 }),
        (h, at, shift) => {
          const other =
            h.slice(0, at) + alphabet[(alphabet.indexOf(h[at]!) + shift) % 64] + h.slice(at + 1);
          const known = new KnownHashes();
          known.add(h);
          return known.has(h) && !known.has(other);
        },
      ),
    );
  });

  it('refuses to add what is not a content hash, and never has one', () => {
    const known = new KnownHashes();
    const bad = [
      'short',
      '+AAAAAAAAAAAAAAAAAAAAA',
      'AAAAAAAAAAAAAAAAAAA\u00e9AA',
      'AAAAAAAAAAAAAAAAAAAA+A',
      'AAAAAAAAAAAAAAAAAAAAA+',
      'AAAAAAAAAAAAAAAAAAAAAAA',
    ];
    for (const hash of bad) {
      expect(() => known.add(hash), hash).toThrow(`not a content hash: ${JSON.stringify(hash)}`);
    }
    expect(known.size).toBe(0);
    // Next to the hash they would read as (every character 0), none is had.
    known.add('AAAAAAAAAAAAAAAAAAAAAA');
    expect(bad.filter((hash) => known.has(hash))).toEqual([]);
    expect(known.has('')).toBe(false);
  });
});
