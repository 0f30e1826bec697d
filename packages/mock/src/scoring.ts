import type { Collection } from './collection.js';
import type { Mission, Scorecard } from './dataset.js';

/**
 * D20: `scorecardId` if given; else the mission's scorecard; else the organization's scorecard
 * whose keywords overlap the transcript most (ties: the first by id). Null only when the
 * organization has no scorecard (analysis SKIPPED, D18).
 */
export function chooseScorecard(
  scorecards: Collection<Scorecard>,
  find: (id: string) => Scorecard | undefined,
  given: { scorecard?: Scorecard | undefined; mission?: Mission | undefined },
  transcriptLines: readonly string[],
): Scorecard | null {
  if (given.scorecard) return given.scorecard;
  if (given.mission) return find(given.mission.scorecardId) ?? null;
  const text = transcriptLines.join('\n').toLowerCase();
  let best: Scorecard | null = null;
  let bestOverlap = -1;
  let bestId = '';
  // Scorecards are few per organization; the demo keeps their number small.
  for (let i = 0; i < scorecards.length; i++) {
    const s = scorecards.at(i);
    const keywords = new Set(s.items.flatMap((it) => it.keywords));
    let overlap = 0;
    for (const k of keywords) if (text.includes(k)) overlap++;
    if (overlap > bestOverlap || (overlap === bestOverlap && s.id < bestId)) {
      best = s;
      bestOverlap = overlap;
      bestId = s.id;
    }
  }
  return best;
}

type Solved = 'undetected' | 'notSolved' | 'partlySolved' | 'solved';

interface ItemResult {
  name: string;
  score: number;
  solved: Solved;
  explanation: string;
  suggestion: string | null;
  evidence: string[];
  matched: string[];
}

export interface ScoreResult {
  score: number;
  items: ItemResult[];
}

/** D19: `solved` at 70+, `partlySolved` at 30–69, `notSolved` under 30. */
function solvedFor(score: number): Exclude<Solved, 'undetected'> {
  return score >= 70 ? 'solved' : score >= 30 ? 'partlySolved' : 'notSolved';
}

const MAX_EVIDENCE = 3;

/**
 * D19, deterministic: an item's score is the share (0–100) of its keywords the rep says;
 * `undetected` when none of them occurs in the transcript at all (whoever says it); evidence
 * quotes the rep's matching lines. The session score is the mean of the item scores.
 */
export function scoreTranscript(
  scorecard: Scorecard,
  repLines: readonly string[],
  allLines: readonly string[],
): ScoreResult {
  const repLower = repLines.map((l) => l.toLowerCase());
  const allText = allLines.join('\n').toLowerCase();
  const items = scorecard.items.map((item): ItemResult => {
    const matched = item.keywords.filter((k) => repLower.some((l) => l.includes(k)));
    const score = Math.round((100 * matched.length) / item.keywords.length);
    const occurs = item.keywords.some((k) => allText.includes(k));
    const missing = item.keywords.filter((k) => !matched.includes(k));
    return {
      name: item.name,
      score,
      solved: occurs ? solvedFor(score) : 'undetected',
      explanation:
        matched.length === 0
          ? `The rep did not mention any of: ${item.keywords.join(', ')}.`
          : `The rep mentioned ${matched.join(', ')} (${matched.length} of ${item.keywords.length}).`,
      suggestion: missing.length === 0 ? null : `Also cover: ${missing.join(', ')}.`,
      evidence: repLines
        .filter((_, i) => matched.some((k) => repLower[i]?.includes(k)))
        .slice(0, MAX_EVIDENCE),
      matched,
    };
  });
  const score =
    items.length === 0 ? 0 : Math.round(items.reduce((s, i) => s + i.score, 0) / items.length);
  return { score, items };
}
