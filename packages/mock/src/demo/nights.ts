import { type Collection, lazyCollection } from '../collection.js';
import { hash32, rng } from '../random.js';

/**
 * "Night N" of a generated list: the list of night N - 1 with a few percent of its records
 * deleted, as many updated and as many inserted, chosen from the seed, so that a nightly job can
 * rehearse on data that changes like a day's and the same seed and night give the same data.
 */
const SHARE = 0.02;
const DAY = 86_400_000;
/** When night `n`'s changes happen: after every timestamp of the generated data. */
const nightTime = (n: number): number => Date.UTC(2025, 11, 1) + n * DAY;

export interface Nightly<T> {
  list: Collection<T>;
  /** The record of code `code` (its index in the generator) on that night, if it exists. */
  get(code: number): T | undefined;
}

/**
 * `make(code, createdAt?)` builds record `code` (a later code sorts later, D9), an inserted one
 * with the `createdAt` (ms) of its night. Only `deletable` codes (nothing refers to them) go.
 */
export function nightly<T>(
  n: number,
  night: number,
  salt: number,
  make: (code: number, createdAt?: number) => T,
  deletable: (code: number) => boolean,
): Nightly<T> {
  if (night === 0) {
    return {
      list: lazyCollection(n, (i) => make(i)),
      get: (c) => (c >= 0 && c < n ? make(c) : undefined),
    };
  }
  let codes = Array.from({ length: n }, (_, i) => i);
  const born = new Map<number, number>();
  const deleted = new Set<number>();
  const revised = new Map<number, number>();
  for (let t = 1; t <= night; t++) {
    const next = rng(hash32(salt, t));
    const k = Math.max(1, Math.round(codes.length * SHARE));
    const chosen = (ok: (code: number) => boolean) => {
      const out = new Set<number>();
      for (let tries = 0; out.size < k && tries < 50 * k; tries++) {
        const code = codes[Math.floor(next() * codes.length)] as number;
        if (ok(code) && !out.has(code)) out.add(code);
      }
      return out;
    };
    const gone = chosen(deletable);
    for (const c of gone) deleted.add(c);
    codes = codes.filter((c) => !gone.has(c));
    for (const c of chosen(() => true)) revised.set(c, t);
    const first = n + born.size;
    for (let j = 0; j < k; j++) {
      // Spread over the night's first half: after the night before, before its updates.
      born.set(first + j, nightTime(t) - DAY / 2 + Math.floor((j * DAY) / 2 / k));
      codes.push(first + j);
    }
  }
  const end = n + born.size;
  const version = (c: number) => {
    const t = make(c, born.get(c));
    const r = revised.get(c);
    return r === undefined ? t : revise(t, r);
  };
  return {
    list: lazyCollection(codes.length, (i) => version(codes[i] as number)),
    get: (c) => (c >= 0 && c < end && !deleted.has(c) ? version(c) : undefined),
  };
}

/**
 * An update on night `n`: names and titles change, due dates move, a session gets a summary, and
 * `lastUpdatedAt` moves to the night (references never change, so they stay valid).
 */
function revise<T>(record: T, n: number): T {
  const r = { ...record } as Record<string, unknown>;
  const at = new Date(nightTime(n)).toISOString();
  for (const key of ['title', 'name', 'lastName']) {
    if (typeof r[key] === 'string') r[key] = `${r[key]} (rev. ${n})`;
  }
  if ('dueDate' in r) r.dueDate = new Date(nightTime(n) + 30 * DAY).toISOString();
  if ('lastUpdatedAt' in r) r.lastUpdatedAt = at;
  if (typeof r.call === 'object' && r.call !== null) {
    r.call = { ...r.call, summary: `Reviewed on night ${n}.`, lastUpdatedAt: at };
  }
  return r as T;
}
