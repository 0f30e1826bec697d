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
 * Id prefixes by seed, space and kind: made once (two hashes and four hex numbers), not for every
 * id (the mock's CPU per exported record).
 */
const idPrefixes = new Map<string, string>();
function prefix(key: string, make: () => string): string {
  const p = idPrefixes.get(key) ?? make();
  idPrefixes.set(key, p);
  return p;
}

/**
 * A version-4-shaped UUID whose last 12 hex digits are `index`, so that it maps back to its
 * index. `space` and `seed` keep ids of different kinds and seeds apart.
 */
export function indexedUuid(seed: number, space: number, index: number): string {
  const p = prefix(`u${seed}:${space}`, () => {
    const a = hash32(seed, space);
    const b = hash32(seed, space, 1);
    return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(0x8000 | (space & 0x3fff), 4)}-`;
  });
  return `${p}${index.toString(16).padStart(12, '0')}`;
}

/** 24 lowercase hex characters whose last 12 digits are `index` (missions, tracks, scorecards). */
export function indexedHex24(seed: number, space: number, index: number): string {
  const p = prefix(
    `h${seed}:${space}`,
    () => `${hex(hash32(seed, space), 8)}${hex(hash32(seed, space, 2) >>> 16, 4)}`,
  );
  return `${p}${index.toString(16).padStart(12, '0')}`;
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
