import { SCORECARDS } from './content.js';

/**
 * How many records of each list a demo organization of `records` holds. Every count only grows
 * with `records` and they sum to it, so a larger demo is a smaller one plus records at the end
 * of its lists (record `i` is the same whatever the size).
 */
export const KINDS = [
  'scorecards',
  'missions',
  'tracks',
  'teams',
  'users',
  'sprints',
  'trackAssignments',
  'missionAssignments',
  'realCallSessions',
] as const;
export type Kind = (typeof KINDS)[number];
export type Counts = Record<Kind, number>;

const MIN = [3, 4, 3, 2, 6, 1, 2, 2, 1];
/** The records of an organization: never fewer than the minimums of its lists. */
export const MIN_ORG_RECORDS = MIN.reduce((a, b) => a + b, 0);
/** Shares, in 200ths, of the records past the minimums; the capped lists' overflow are sessions. */
export const SHARE = [1, 2, 1, 1, 20, 4, 30, 50, 91];
const MAX = [SCORECARDS.length * 10, 500, 200, 500];
const PERIOD = 200;
const SESSIONS = KINDS.length - 1;

/** `before[k][r]`: records of kind k among the first r of a period, spread evenly (smooth round robin). */
const before: number[][] = KINDS.map(() => [0]);
let credit = SHARE.map(() => 0);
for (let r = 0; r < PERIOD; r++) {
  credit = credit.map((c, k) => c + (SHARE[k] as number));
  const best = credit.indexOf(Math.max(...credit));
  credit[best] = (credit[best] as number) - PERIOD;
  for (const [k, b] of before.entries()) b.push((b[r] as number) + (k === best ? 1 : 0));
}

function uncapped(k: number, records: number): number {
  const extra = Math.max(0, records - MIN_ORG_RECORDS);
  const q = Math.floor(extra / PERIOD);
  return (MIN[k] as number) + q * (SHARE[k] as number) + (before[k]?.[extra % PERIOD] as number);
}

/** The count of kind `k` (an index of KINDS) at `records`. */
export function countAt(k: number, records: number): number {
  if (k !== SESSIONS) return Math.min(MAX[k] ?? Number.POSITIVE_INFINITY, uncapped(k, records));
  let others = 0;
  for (let j = 0; j < SESSIONS; j++) others += countAt(j, records);
  return Math.max(records, MIN_ORG_RECORDS) - others;
}

export const countsAt = (records: number): Counts =>
  Object.fromEntries(KINDS.map((kind, k) => [kind, countAt(k, records)])) as Counts;
