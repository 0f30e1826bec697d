/**
 * Ordered, random-access record lists. An export page is a slice of one of these, so a page
 * costs O(limit) whether the list holds ten records or a million generated on demand.
 */
export interface Collection<T> {
  readonly length: number;
  at(index: number): T;
}

/** D9: records by `createdAt` ascending, then `id`; records without `createdAt` by `id`. */
export function compareD9(
  a: { id: string; createdAt?: string },
  b: { id: string; createdAt?: string },
): number {
  const ta = a.createdAt === undefined ? 0 : Date.parse(a.createdAt);
  const tb = b.createdAt === undefined ? 0 : Date.parse(b.createdAt);
  if (ta !== tb) return ta - tb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function arrayCollection<T>(items: readonly T[]): Collection<T> {
  return {
    get length() {
      return items.length;
    },
    at: (i) => items[i] as T,
  };
}

export function lazyCollection<T>(length: number, make: (index: number) => T): Collection<T> {
  return { length, at: make };
}

export function slice<T>(c: Collection<T>, start: number, end: number): T[] {
  const out: T[] = [];
  const stop = Math.min(end, c.length);
  for (let i = start; i < stop; i++) out.push(c.at(i));
  return out;
}

/** Records of `c` for which `keep` holds, in order. The index is built once, on first use. */
export function filtered<T>(c: Collection<T>, keep: (item: T) => boolean): Collection<T> {
  let index: number[] | undefined;
  const build = (): number[] => {
    if (!index) {
      index = [];
      for (let i = 0; i < c.length; i++) if (keep(c.at(i))) index.push(i);
    }
    return index;
  };
  return {
    get length() {
      return build().length;
    },
    at: (i) => c.at(build()[i] as number),
  };
}

/**
 * An immutable base list plus records added at run time (created users and sessions), seen as
 * one list in `compare` order. Each added record remembers how many base records sort before it,
 * so reading a page does not touch the base beyond the page itself.
 */
export class MergedCollection<T> implements Collection<T> {
  private readonly added: { item: T; before: number }[] = [];

  constructor(
    private readonly base: Collection<T>,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  get length(): number {
    return this.base.length + this.added.length;
  }

  add(item: T): void {
    let lo = 0;
    let hi = this.base.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(this.base.at(mid), item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    let at = this.added.length;
    while (at > 0 && this.compare((this.added[at - 1] as { item: T }).item, item) > 0) at--;
    this.added.splice(at, 0, { item, before: lo });
  }

  at(index: number): T {
    return this.slice(index, index + 1)[0] as T;
  }

  slice(start: number, end: number): T[] {
    const added = this.added;
    // Added record j sits at merged position before_j + j (both non-decreasing in j).
    let lo = 0;
    let hi = added.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const a = added[mid] as { before: number };
      if (a.before + mid < start) lo = mid + 1;
      else hi = mid;
    }
    let j = lo;
    let b = start - j;
    const out: T[] = [];
    const stop = Math.min(end, this.length);
    for (let m = start; m < stop; m++) {
      const next = added[j];
      if (next && next.before + j === m) {
        out.push(next.item);
        j++;
      } else {
        out.push(this.base.at(b));
        b++;
      }
    }
    return out;
  }
}
