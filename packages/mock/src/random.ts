/**
 * Deterministic pseudo-randomness. Generated data and runtime ids derive from the seed, so a run
 * of the mock is reproducible (mock-fixture.md: "a run is reproducible"), and record `i` of a
 * generated collection can be produced on demand without generating `0..i-1`.
 */

/** A 32-bit hash of integers (murmur3 finaliser over a running mix). */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: number, width: number): string => (n >>> 0).toString(16).padStart(width, '0');

/**
 * Id prefixes by seed, then by space and kind (`space * 2`, `+ 1` for indexedHex24): made once
 * (two hashes and four hex numbers), not for every id (the mock's CPU per exported
 * record).
 */
const idPrefixes = new Map<number, Map<number, string>>();

function prefixes(seed: number): Map<number, string> {
  let bySeed = idPrefixes.get(seed);
  if (bySeed === undefined) {
    bySeed = new Map();
    idPrefixes.set(seed, bySeed);
  }
  return bySeed;
}

/**
 * A version-4-shaped UUID whose last 12 hex digits are `index`, so that it can be mapped back to
 * its index (`uuidIndex`). `space` and `seed` keep ids of different kinds and seeds apart.
 */
export function indexedUuid(seed: number, space: number, index: number): string {
  const bySeed = prefixes(seed);
  let prefix = bySeed.get(space * 2);
  if (prefix === undefined) {
    const a = hash32(seed, space);
    const b = hash32(seed, space, 1);
    prefix = `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(0x8000 | (space & 0x3fff), 4)}-`;
    bySeed.set(space * 2, prefix);
  }
  return `${prefix}${index.toString(16).padStart(12, '0')}`;
}

/** The index encoded by `indexedUuid`, or undefined when the id is not of that seed and space. */
export function uuidIndex(seed: number, space: number, id: string): number | undefined {
  const m = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-([0-9a-f]{12})$/.exec(id);
  if (!m?.[1]) return undefined;
  const index = Number.parseInt(m[1], 16);
  return indexedUuid(seed, space, index) === id ? index : undefined;
}

/** 24 lowercase hex characters whose last 12 digits are `index` (missions, tracks, scorecards). */
export function indexedHex24(seed: number, space: number, index: number): string {
  const bySeed = prefixes(seed);
  let prefix = bySeed.get(space * 2 + 1);
  if (prefix === undefined) {
    prefix = `${hex(hash32(seed, space), 8)}${hex(hash32(seed, space, 2) >>> 16, 4)}`;
    bySeed.set(space * 2 + 1, prefix);
  }
  return `${prefix}${index.toString(16).padStart(12, '0')}`;
}

/** A random version-4 UUID from a generator. */
export function randomUuid(next: () => number): string {
  const w = () => Math.floor(next() * 0x100000000);
  const a = w();
  const b = w();
  const c = w();
  const d = w();
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(0x8000 | (c >>> 18), 4)}-${hex(c & 0xffff, 4)}${hex(d, 8)}`;
}
