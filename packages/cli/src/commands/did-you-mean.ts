/**
 * "Did you mean …?" for values, as commander suggests for commands and flags ("Did you mean
 * upload?"), with its rule: the candidates at the smallest optimal-string-alignment distance
 * (at most 2), more than 40 % similar. Commander's own function is not part of its public API,
 * hence these few lines (`rcs export al` → "Did you mean all?").
 */
const MAX_DISTANCE = 3;
const MIN_SIMILARITY = 0.4;

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return Math.max(a.length, b.length);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let j = 1; j <= b.length; j++) {
    for (let i = 1; i <= a.length; i++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** `(Did you mean all?)`, `(Did you mean one of a, b?)`, or '' when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  let similar: string[] = [];
  let bestDistance = MAX_DISTANCE;
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(typed, candidate);
    const length = Math.max(typed.length, candidate.length);
    if ((length - distance) / length <= MIN_SIMILARITY) continue;
    if (distance < bestDistance) {
      bestDistance = distance;
      similar = [candidate];
    } else if (distance === bestDistance) similar.push(candidate);
  }
  similar.sort((x, y) => x.localeCompare(y));
  if (similar.length > 1) return `(Did you mean one of ${similar.join(', ')}?)`;
  return similar.length === 1 ? `(Did you mean ${similar[0]}?)` : '';
}
