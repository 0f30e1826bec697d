/**
 * The content hashes of the state a `--changes` run compares with (its base), as a set: a record
 * whose hash is among them is unchanged since the base, because the hash covers the whole record,
 * its id included (changes.ts `contentHash`). Such a record's text is never needed (the change
 * file carries only inserts and updates), so the run does not keep or spill it (issue 26: the
 * record text written to run files and merged was most of what `--changes` cost).
 *
 * A hash is 22 base64url characters (132 bits of SHA-256); the set keeps the first 20 of them as
 * four 30-bit words (120 bits) in an open-addressing table of one Uint32Array, 16 bytes a slot,
 * 3/8 to 3/4 full (it doubles: 16 MB for 480,000 records, the demo's sessions at 1M). A changed record is taken for unchanged only
 * if its 120 bits equal those of some record of the base: about changed × base / 2¹²⁰, 10⁻²⁴ for
 * a million of each. Even then nothing is lost silently: the comparison finds the record changed,
 * has no text for it, and fails the export naming the record (changes.ts).
 */

/** 6-bit value of each base64url character; -1 for any other. */
const SEXTET = new Int8Array(128).fill(-1);
for (const [i, c] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
].entries()) {
  SEXTET[c.charCodeAt(0)] = i;
}

const WORDS = 4;
const CHARS_PER_WORD = 5;

/** The 6-bit value of the character at `i`; -1 if it is not base64url. */
function sextetAt(hash: string, i: number): number {
  return SEXTET[hash.charCodeAt(i)] ?? -1;
}

/** A word of 30 bits from 5 characters; null if one is not base64url. */
function wordOf(hash: string, word: number): number | null {
  let value = 0;
  for (let i = word * CHARS_PER_WORD; i < (word + 1) * CHARS_PER_WORD; i++) {
    const sextet = sextetAt(hash, i);
    if (sextet < 0) return null;
    value = value * 64 + sextet;
  }
  return value;
}

export class KnownHashes {
  /** WORDS words a slot; a slot whose first word is 0 is empty (that word is stored + 1). */
  #slots = new Uint32Array(1024 * WORDS);
  #size = 0;
  /** The words of the hash being added or looked up (no array per record). */
  readonly #words = new Uint32Array(WORDS);

  get size(): number {
    return this.#size;
  }

  /** The table's memory (for the figure in EXPORT.md: 16 bytes a slot, at most 3/4 full). */
  get bytes(): number {
    return this.#slots.byteLength;
  }

  /** Adds a content hash (22 base64url characters); throws on anything else. */
  add(hash: string): void {
    // Grown first: growing uses the same scratch words.
    if ((this.#size + 1) * 4 > this.#capacity * 3) this.#grow();
    if (!wordsOf(hash, this.#words)) {
      throw new RangeError(`not a content hash: ${JSON.stringify(hash)}`);
    }
    if (this.#insert(this.#words)) this.#size++;
  }

  /** Whether the base has a record with this content hash (and so the same record). */
  has(hash: string): boolean {
    return wordsOf(hash, this.#words) && this.#slots[this.#slotOf(this.#words)] !== 0;
  }

  get #capacity(): number {
    return this.#slots.length / WORDS;
  }

  /** Where these words are stored, or the empty slot where they would go (its first word). */
  #slotOf(words: Uint32Array): number {
    const slots = this.#slots;
    const capacity = this.#capacity;
    const first = words[0]! + 1;
    for (let slot = words[0]! % capacity; ; slot = slot + 1 === capacity ? 0 : slot + 1) {
      const at = slot * WORDS;
      if (slots[at] === 0) return at;
      if (
        slots[at] === first &&
        slots[at + 1] === words[1] &&
        slots[at + 2] === words[2] &&
        slots[at + 3] === words[3]
      ) {
        return at;
      }
    }
  }

  /** Stores the words unless present; true when stored. */
  #insert(words: Uint32Array): boolean {
    const at = this.#slotOf(words);
    if (this.#slots[at] !== 0) return false;
    this.#slots.set(words, at);
    this.#slots[at] = words[0]! + 1;
    return true;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    const words = this.#words;
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at] === 0) continue;
      words[0] = old[at]! - 1;
      words[1] = old[at + 1]!;
      words[2] = old[at + 2]!;
      words[3] = old[at + 3]!;
      this.#insert(words);
    }
  }
}

/** The hash's four words into `words`; false if it is not 22 base64url characters. */
function wordsOf(hash: string, words: Uint32Array): boolean {
  // The last two characters are not kept, but a hash is all 22 of them.
  if (hash.length !== 22 || sextetAt(hash, 20) < 0 || sextetAt(hash, 21) < 0) return false;
  for (let w = 0; w < WORDS; w++) {
    const word = wordOf(hash, w);
    if (word === null) return false;
    words[w] = word;
  }
  return true;
}
