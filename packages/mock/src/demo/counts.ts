import { EXPORT_TABLE, type ExportName } from '@rcs/client';
import { SCORECARDS } from './content.js';

/**
 * How many records of each list a demo organization of `records` holds. Every count only grows
 * with `records` and they sum to it, so a larger demo is a smaller one plus records at the end
 * of its lists (record `i` is the same whatever the size).
 */
export type Kind = ExportName;
export const KINDS: readonly Kind[] = EXPORT_TABLE.map((e) => e.name);

/** [minimum, share in 200ths of the records past the minimums, maximum]; sessions take the rest. */
const PLAN: Record<Kind, [number, number, number?]> = {
  realCallSessions: [1, 91],
  trackAssignments: [2, 30],
  missionAssignments: [2, 50],
  sprints: [1, 4],
  users: [6, 20],
  tracks: [3, 1, 200],
  scorecards: [3, 1, SCORECARDS.length * 10],
  missions: [4, 2, 500],
  teams: [2, 1, 500],
};
const PERIOD = 200;
/** The records of an organization: never fewer than the minimums of its lists. */
export const MIN_ORG_RECORDS = KINDS.reduce((a, k) => a + PLAN[k][0], 0);

/** `before[k][r]`: records of kind k among the first r of a period, spread evenly (smooth round robin). */
const before = KINDS.map(() => [0]);
let credit = KINDS.map(() => 0);
for (let r = 0; r < PERIOD; r++) {
  credit = credit.map((c, k) => c + PLAN[KINDS[k] as Kind][1]);
  const best = credit.indexOf(Math.max(...credit));
  credit[best] = (credit[best] as number) - PERIOD;
  for (const [k, b] of before.entries()) b.push((b[r] as number) + (k === best ? 1 : 0));
}

/** The count of `kind` in an organization of `records` (at least MIN_ORG_RECORDS). */
export function countAt(kind: Kind, records: number): number {
  const extra = Math.max(0, records - MIN_ORG_RECORDS);
  if (kind === 'realCallSessions') {
    return (
      MIN_ORG_RECORDS +
      extra -
      KINDS.reduce((a, k) => a + (k === kind ? 0 : countAt(k, records)), 0)
    );
  }
  const [min, share, max = Number.POSITIVE_INFINITY] = PLAN[kind];
  const k = KINDS.indexOf(kind);
  return Math.min(
    max,
    min + Math.floor(extra / PERIOD) * share + (before[k]?.[extra % PERIOD] as number),
  );
}
