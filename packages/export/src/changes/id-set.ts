/**
 * A set of strings in a few bytes each: the ids already written for one export, for
 * de-duplication (D9: offset pagination over a list that changes can repeat records), and the
 * content hashes of the state a `--changes` run compares with (changes.ts).
 *
 * A `Set<string>` of a million UUIDs costs about 80 MB, which would break the flat-memory goal.
 * This set keeps a 64-bit hash of each id in an open-addressing table of two Uint32Arrays:
 * 8 bytes a slot, sized from `meta.total` up front (so no growth spikes mid-run), at most 3/4
 * full. Two different ids share a 64-bit hash with probability about n²/2⁶⁵ (3·10⁻⁸ for a
 * million records); if it ever happened, the record would be counted as a duplicate, the count
 * would fall short of `meta.total`, and the export would fail loudly rather than silently. For
 * the base's content hashes, a changed record taken for unchanged (about changed × base / 2⁶⁴:
 * 5·10⁻¹¹ for a thousand changes against a million records) has no text kept, and the
 * comparison fails the export naming it (changes.ts), never writing a change without its data.
 */

/** The low half of an empty slot: no hash has it (hash64). */
const EMPTY_LO = 0;

/**
 * FNV-1a over UTF-16 code units, twice with different offsets, giving 2 × 32 bits (exported for
 * the tests, which look for strings that share one half).
 */
export function hash64(id: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  // Stryker disable next-line EqualityOperator: one more round (of NaN, as 0) is another hash, as good
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  // Final avalanche so that ids differing in the last characters spread over the table.
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b ^= b >>> 16;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  // A low half of 0 marks an empty slot: a hash that has it (1 in 2³²) takes 1 instead.
  return [a >>> 0, b >>> 0 || 1];
}

export class IdSet {
  #hi: Uint32Array;
  #lo: Uint32Array;
  #size = 0;

  constructor(expected = 1024) {
    // Stryker disable next-line MethodExpression,ArithmeticOperator: the first size only sets when the table grows, never what it holds
    const capacity = Math.max(16, Math.ceil((Math.max(expected, 1) * 4) / 3) + 1);
    this.#hi = new Uint32Array(capacity);
    this.#lo = new Uint32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: growing sooner or later changes the memory, never what the set holds
    if ((this.#size + 1) * 4 > this.#hi.length * 3) this.#grow();
    const [h, l] = hash64(id);
    return this.#insert(h, l);
  }

  /** Whether `id` was added (or another string of the same 64-bit hash). */
  has(id: string): boolean {
    const [h, l] = hash64(id);
    return !this.#isEmpty(this.#slotOf(h, l));
  }

  #isEmpty(slot: number): boolean {
    return this.#lo[slot] === EMPTY_LO;
  }

  /** The slot holding (h, l), or the empty slot where it would go. */
  #slotOf(h: number, l: number): number {
    const hi = this.#hi;
    const lo = this.#lo;
    const capacity = hi.length;
    let slot = (h ^ Math.imul(l, 0x27d4eb2d)) >>> 0;
    slot %= capacity;
    for (;;) {
      if (this.#isEmpty(slot) || (hi[slot] === h && lo[slot] === l)) return slot;
      const next = slot + 1;
      slot = next === capacity ? 0 : next;
    }
  }

  #insert(h: number, l: number): boolean {
    const slot = this.#slotOf(h, l);
    if (!this.#isEmpty(slot)) return false;
    this.#hi[slot] = h;
    this.#lo[slot] = l;
    this.#size++;
    return true;
  }

  #grow(): void {
    const oldHi = this.#hi;
    const oldLo = this.#lo;
    this.#hi = new Uint32Array(oldHi.length * 2);
    this.#lo = new Uint32Array(oldLo.length * 2);
    this.#size = 0;
    for (let i = 0; i < oldHi.length; i++) {
      const l = oldLo[i]!;
      if (l !== EMPTY_LO) this.#insert(oldHi[i]!, l);
    }
  }
}
