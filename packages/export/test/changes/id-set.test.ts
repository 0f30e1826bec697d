import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hash64, IdSet } from '../../src/changes/id-set.js';

describe('IdSet', () => {
  it('tells a new id from one already added', () => {
    const ids = new IdSet(4);
    expect(ids.add('a')).toBe(true);
    expect(ids.add('b')).toBe(true);
    expect(ids.add('a')).toBe(false);
    expect(ids.size).toBe(2);
  });

  it('keeps every id distinct past its presized capacity (growth)', () => {
    const ids = new IdSet(8);
    const all = Array.from({ length: 50_000 }, () => randomUUID());
    for (const id of all) expect(ids.add(id)).toBe(true);
    for (const id of all.slice(0, 1000)) expect(ids.add(id)).toBe(false);
    expect(ids.size).toBe(50_000);
  });

  it('has what was added, through growth, and nothing else', () => {
    const ids = new IdSet(8);
    expect(ids.has('a')).toBe(false);
    const all = Array.from({ length: 20_000 }, () => randomUUID());
    for (const id of all) ids.add(id);
    expect(all.every((id) => ids.has(id))).toBe(true);
    const others = Array.from({ length: 20_000 }, () => randomUUID());
    expect(others.filter((id) => ids.has(id))).toEqual([]);
    // `has` adds nothing.
    expect(ids.size).toBe(20_000);
    expect(ids.add(others[0]!)).toBe(true);
  });

  it('strings that share one half of their 64-bit hash are told apart (both halves are compared)', () => {
    // Birthday search: among a few hundred thousand short strings, pairs share each 32-bit half.
    const pairsOn = (half: 0 | 1, count: number): [string, string][] => {
      const seen = new Map<number, string>();
      const pairs: [string, string][] = [];
      for (let i = 0; pairs.length < count; i++) {
        const id = `id-${i}`;
        const key = hash64(id)[half];
        const other = seen.get(key);
        if (other !== undefined) pairs.push([other, id]);
        else seen.set(key, id);
      }
      return pairs;
    };
    for (const half of [0, 1] as const) {
      for (const [a, b] of pairsOn(half, 4)) {
        expect(hash64(a)[half]).toBe(hash64(b)[half]);
        expect(hash64(a)[1 - half]).not.toBe(hash64(b)[1 - half]);
        // A small, 3/4-full table, so that looking for one walks past the other.
        const ids = new IdSet(1);
        for (let f = 0; f < 10; f++) ids.add(`filler-${f}`);
        expect(ids.add(a)).toBe(true);
        expect(ids.has(b)).toBe(false);
        expect(ids.add(b)).toBe(true);
        expect(ids.has(a) && ids.has(b)).toBe(true);
        expect(ids.size).toBe(12);
      }
    }
  });

  it('a small table filled to three quarters, again and again, finds every id (probes wrap round its end)', () => {
    for (let trial = 0; trial < 500; trial++) {
      // 16 slots, 12 ids: as full as it gets before growing.
      const ids = new IdSet(1);
      const all = Array.from({ length: 12 }, (_, i) => `${trial}-${i}`);
      for (const id of all) expect(ids.add(id)).toBe(true);
      expect(all.every((id) => ids.has(id))).toBe(true);
      expect(ids.has(`${trial}-absent`)).toBe(false);
      expect(ids.size).toBe(12);
    }
  });

  it('distinguishes ids that differ only in their last character, and hex24 ids', () => {
    const ids = new IdSet(1000);
    for (let i = 0; i < 1000; i++) {
      expect(ids.add(`64b7f0c2a1b2c3d4e5f6${i.toString(16).padStart(4, '0')}`)).toBe(true);
    }
    expect(ids.add('64b7f0c2a1b2c3d4e5f60000')).toBe(false);
  });
});
