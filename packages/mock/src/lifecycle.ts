import type { Kpis as KpiValues } from '@rcs/transcript';
import type { Mission, Scorecard } from './dataset.js';
import type { ScoreResult } from './scoring.js';
import type { TranscriptFacts } from './transcript-facts.js';
import type {
  AnalysisItem,
  Kpis,
  Language,
  RealCallSession,
  RealCallSessionExportRecord,
} from './wire.js';

/** What processing produced (D15, D19–D21); set once, when the session reaches DONE. */
interface ProcessingResult {
  participantUserIds: string[];
  /** Null: the organization had no scorecard to use (analysis SKIPPED, D18). */
  score: ScoreResult | null;
  /** Null: no timing or no rep-labeled cue (KPIs SKIPPED, D18). */
  kpis: KpiValues | null;
}

/** A session created through the API; its state is computed from the clock when read (D18). */
export interface LiveSession {
  live: true;
  id: string;
  orgId: string;
  createdAt: string;
  createdAtMs: number;
  processingMs: number;
  userId: string;
  /** The rep's email (lowercase), or null for a userId rep without one. */
  repEmail: string | null;
  meetingName: string;
  language: Language;
  mission: Mission | null;
  scorecard: Scorecard | null;
  facts: TranscriptFacts;
  result?: ProcessingResult;
}

export type StoredSession = RealCallSession | LiveSession;

const isLive = (s: StoredSession): s is LiveSession => (s as { live?: unknown }).live === true;

type Phase = 'PENDING' | 'PROCESSING' | 'DONE';

/**
 * D18: PENDING at creation, PROCESSING from half the processing time, DONE once it has passed.
 * Computed from the clock at read time, so tests move virtual time instead of waiting.
 */
function phaseAt(s: LiveSession, now: number): { phase: Phase; since: number } {
  const done = s.createdAtMs + s.processingMs;
  if (now >= done) return { phase: 'DONE', since: done };
  const processing = s.createdAtMs + Math.floor(s.processingMs / 2);
  if (now >= processing && processing > s.createdAtMs)
    return { phase: 'PROCESSING', since: processing };
  return { phase: 'PENDING', since: s.createdAtMs };
}

export const doneAtMs = (s: LiveSession): number => s.createdAtMs + s.processingMs;

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The scorecard items of a scored call as the API shows them (D19): one behaviour with the rep's
 * evidence where a keyword matched. `stamp(n)` gives item n's id and times (1-based). Shared by
 * live sessions and the generated demo sessions, so both read alike.
 */
export function analysisItems(
  score: ScoreResult | null | undefined,
  stamp: (n: number) => { id: string; createdAt: string; lastUpdatedAt: string },
): AnalysisItem[] {
  return (score?.items ?? []).map((it, i) => ({
    ...stamp(i + 1),
    state: 'DONE',
    score: it.score,
    name: it.name,
    explanation: it.explanation,
    suggestion: it.suggestion,
    conversationItemReferenceId: null,
    solved: it.solved,
    behaviours:
      it.evidence.length === 0
        ? []
        : [
            {
              evidence: it.evidence,
              verdict: `Mentioned ${it.matched.join(', ')}`,
              score: it.score,
            },
          ],
  }));
}

/** The API view of a session at `now`. `forceInitial` renders the creation answer (R10, D18). */
export function sessionView(s: StoredSession, now: number, forceInitial = false): RealCallSession {
  if (!isLive(s)) return s;
  const { phase, since } = forceInitial
    ? { phase: 'PENDING' as const, since: s.createdAtMs }
    : phaseAt(s, now);
  const done = phase === 'DONE' && s.result !== undefined;
  const updated = iso(since);
  const created = s.createdAt;
  const r = done ? s.result : undefined;
  const analysisState = r
    ? r.score
      ? 'DONE'
      : 'SKIPPED'
    : phase === 'PENDING'
      ? 'PENDING'
      : 'PROCESSING';
  const kpiState = r
    ? r.kpis
      ? 'DONE'
      : 'SKIPPED'
    : phase === 'PENDING'
      ? 'PENDING'
      : 'PROCESSING';
  const items = analysisItems(r?.score, (n) => ({
    id: `${s.id}-item-${n}`,
    createdAt: created,
    lastUpdatedAt: updated,
  }));
  const score = r?.score?.score ?? 0;
  const kpis: Kpis = {
    id: `${s.id}-kpis`,
    createdAt: created,
    lastUpdatedAt: updated,
    state: kpiState,
    listenRatio: r?.kpis?.listenRatio ?? null,
    longestMonologue: r?.kpis?.longestMonologue ?? null,
    talkSpeed: r?.kpis?.talkSpeed ?? null,
  };
  return {
    id: s.id,
    createdAt: created,
    lastUpdatedAt: updated,
    userId: s.userId,
    call: {
      id: `${s.id}-call`,
      createdAt: created,
      lastUpdatedAt: updated,
      assistantReferenceId: 'real-call',
      state: r ? 'DONE' : 'PENDING',
      endedReason: null,
      providerCallId: null,
      summary: null,
      transcript: s.facts.stored,
    },
    analysis: {
      id: `${s.id}-analysis`,
      createdAt: created,
      lastUpdatedAt: updated,
      state: analysisState,
      items,
      score,
    },
    kpis,
    language: s.language,
    state: r ? 'DONE' : phase === 'DONE' ? 'PROCESSING' : phase,
    // D19: completed exactly when DONE and score >= 70.
    completed: r !== undefined && score >= 70,
    type: 'REAL_CALL',
    missionReferenceId: s.mission?.id ?? null,
    missionTitle: s.mission?.title ?? null,
    scorecardReferenceId: s.scorecard?.id ?? null,
    scorecardTitle: s.scorecard?.title ?? null,
    trackId: null,
    trackTitle: null,
    // R10 / D15: unresolved until processing has finished.
    participantUserIds: r ? r.participantUserIds : [],
    playedLanguage: null,
  };
}

/** D10: the export record of a session, in any state. */
export function sessionExportRecord(s: RealCallSession): RealCallSessionExportRecord {
  const done = s.state === 'DONE';
  return {
    id: s.id,
    createdAt: s.createdAt,
    lastUpdatedAt: s.lastUpdatedAt,
    learnerUserId: s.userId,
    transcript: s.call.transcript ?? null,
    language: s.language,
    completed: s.completed,
    analysis: done
      ? {
          score: s.analysis.score,
          items: s.analysis.items.map((it) => ({
            name: it.name ?? null,
            // D10: no `undetected` and no null in the export: both become notSolved.
            solved:
              it.solved === 'solved' || it.solved === 'partlySolved' ? it.solved : 'notSolved',
            explanation: it.explanation ?? null,
            suggestion: it.suggestion ?? null,
            itemScore: it.score,
          })),
        }
      : { score: 0, items: [] },
    missionId: s.missionReferenceId ?? null,
    participantUserIds: s.participantUserIds ?? [],
  };
}
