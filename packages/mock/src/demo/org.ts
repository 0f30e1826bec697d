import type { Kpis } from '@rcs/transcript';
import { type Collection, lazyCollection } from '../collection.js';
import type { Mission, OrgData, Scorecard } from '../dataset.js';
import { analysisItems } from '../lifecycle.js';
import { hash32, indexedHex24, indexedUuid } from '../random.js';
import { chooseScorecard, type ScoreResult, scoreTranscript } from '../scoring.js';
import { allLines, kpisOf, repLines, transcriptFacts } from '../transcript-facts.js';
import type {
  MissionAssignmentExportRecord,
  RealCallSession,
  SprintExportRecord,
  TeamExportRecord,
  TrackAssignmentExportRecord,
  TrackExportRecord,
  UserExportRecord,
} from '../wire.js';
import { CALLS, cap, FIRST, LAST, SCORECARDS } from './content.js';
import { countAt, KINDS, type Kind, MIN_ORG_RECORDS } from './counts.js';
import { type Nightly, nightly } from './nights.js';

/**
 * One demo organization as lazy collections: record `i` of every list is computed from
 * (seed, i) alone, whatever the size; ids and emails map back to their index, so lookups need no
 * index either. References point only at records that no night deletes (`deletable`).
 */

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 6, 8, 0, 0);
const SPAN = 300 * DAY;
const iso = (ms: number): string => new Date(ms).toISOString();

/** Id spaces: ids of different kinds (and organizations, below) never meet. */
const SPACE = { org: 1, ...Object.fromEntries(KINDS.map((kind, i) => [kind, i + 2])) } as Record<
  Kind | 'org',
  number
>;

/** The scorecards of every organization, whatever its size, and never deleted. */
const EVERY_ORG_SCORECARDS = countAt('scorecards', MIN_ORG_RECORDS);

/** Deleted on some night: odd codes past the first few. Every reference is to another code. */
const deletable = (code: number) => code >= 4 && code % 2 === 1;

export interface OrgPlan {
  index: number;
  name: string;
  domain: string;
  autoCreateUsers: boolean;
  /** The organization's export records. */
  records: number;
}

export function demoOrg(seed: number, plan: OrgPlan, night = 0): OrgData {
  const c = Object.fromEntries(KINDS.map((kind) => [kind, countAt(kind, plan.records)]));
  const k = plan.index;
  const sp = (kind: Kind | 'org') => SPACE[kind] * 16 + k;
  const uuid = (kind: Kind, i: number) => indexedUuid(seed, sp(kind), i);
  const hex = (kind: Kind, i: number) => indexedHex24(seed, sp(kind), i);
  const h = (kind: Kind, i: number, salt = 0) => hash32(seed, sp(kind), i, salt);
  // createdAt of record i of `kind`: non-decreasing in i and bounded whatever the size (half the
  // span at the count of a 500-record organization), so the lists are in D9 order; an inserted
  // record has the time of its night.
  const created = (kind: Kind, i: number, at?: number) =>
    at ?? T0 + Math.floor(SPAN * (i / (i + countAt(kind, 500))));
  // The record of `kind` that record `i` refers to, from the hash `r`: one never deleted, among
  // those that exist whenever record `i` does (an organization holding record `i` has at least
  // i + 1 records, and counts only grow with records).
  const ref = (kind: Kind, i: number, r: number) => {
    const n = Math.min(c[kind] as number, countAt(kind, Math.max(i + 1, MIN_ORG_RECORDS)));
    return 2 * (r % Math.ceil(n / 2));
  };
  const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;
  const list = <T>(kind: Kind, make: (i: number, at?: number) => T) =>
    nightly(c[kind] as number, night, hash32(seed, sp(kind), 99), make, deletable);

  const scorecard = (i: number): Scorecard => {
    const t = pick(SCORECARDS, i);
    const round = Math.floor(i / SCORECARDS.length);
    return {
      id: hex('scorecards', i),
      title: round === 0 ? t.title : `${t.title} ${round + 1}`,
      language: t.language,
      items: t.items,
    };
  };
  const scorecards = list('scorecards', scorecard);
  const missions = list('missions', (i): Mission => {
    const sc = scorecard(i % EVERY_ORG_SCORECARDS);
    return {
      id: hex('missions', i),
      title: `${sc.title} practice ${i + 1}`,
      language: sc.language,
      scorecardId: sc.id,
    };
  });
  const missionIdsOf = (i: number) => [
    ...new Set([0, 1, 2].map((d) => hex('missions', ref('missions', i, h('tracks', i, d))))),
  ];
  const tracks = list(
    'tracks',
    (i): TrackExportRecord => ({
      id: hex('tracks', i),
      title: `Track ${i + 1}`,
      description: `Missions of track ${i + 1}.`,
      missionIds: missionIdsOf(i),
      // Some tracks are archived (soft-deleted) so the D8 filter has something to do.
      archived: i % 3 === 1,
    }),
  );
  const teams = list(
    'teams',
    (i): TeamExportRecord => ({
      id: uuid('teams', i),
      name: `${pick(['Enterprise', 'Mid-market', 'SMB', 'Partners', 'Renewals'], i)} ${Math.floor(i / 5) + 1}`,
    }),
  );
  const emailOf = (i: number) =>
    `${pick(FIRST, i)}.${pick(LAST, Math.floor(i / FIRST.length))}${i + 1}@${plan.domain}`;
  const users = list(
    'users',
    (i, at): UserExportRecord => ({
      id: uuid('users', i),
      email: emailOf(i),
      firstName: cap(pick(FIRST, i)),
      lastName: cap(pick(LAST, Math.floor(i / FIRST.length))),
      teamIds: [uuid('teams', ref('teams', i, h('users', i)))],
      createdAt: iso(created('users', i, at)),
    }),
  );
  const sprints = list('sprints', (i, at0): SprintExportRecord => {
    const at = created('sprints', i, at0);
    return {
      id: uuid('sprints', i),
      title: `Sprint ${i + 1}`,
      createdAt: iso(at),
      lastUpdatedAt: iso(at + DAY),
      userId: uuid('users', ref('users', i, h('sprints', i))),
      dueDate: iso(at + 14 * DAY),
      assignedTeamId: uuid('teams', ref('teams', i, h('sprints', i, 1))),
    };
  });
  const assignment = (kind: Kind, i: number, at0?: number) => {
    const at = created(kind, i, at0);
    const r = h(kind, i);
    const completed = r % 3 === 0;
    return {
      id: uuid(kind, i),
      createdAt: iso(at),
      lastUpdatedAt: iso(completed ? at + 3 * DAY : at),
      learnerUserId: uuid('users', ref('users', i, r)),
      startDate: iso(at),
      dueDate: r % 2 === 0 ? iso(at + 30 * DAY) : null,
      status: completed ? ('completed' as const) : ('open' as const),
      completedAt: completed ? iso(at + 3 * DAY) : null,
      assignedByUserId: r % 7 === 0 ? null : uuid('users', ref('users', i, r >>> 8)),
      sprintId: r % 5 === 0 ? uuid('sprints', ref('sprints', i, r >>> 4)) : null,
    };
  };
  const trackAssignments = list('trackAssignments', (i, at): TrackAssignmentExportRecord => {
    const a = assignment('trackAssignments', i, at);
    const track = ref('tracks', i, h('trackAssignments', i, 1));
    const missionIds = missionIdsOf(track);
    return {
      ...a,
      trackId: hex('tracks', track),
      completedMissionIds: a.status === 'completed' ? missionIds : missionIds.slice(0, i % 2),
    };
  });
  const missionAssignments = list(
    'missionAssignments',
    (i, at): MissionAssignmentExportRecord => ({
      ...assignment('missionAssignments', i, at),
      missionId: hex('missions', ref('missions', i, h('missionAssignments', i, 1))),
    }),
  );

  const domains = [plan.domain];
  const first = lazyCollection(EVERY_ORG_SCORECARDS, scorecard);
  const calls = CALLS.map((text) => demoCall(text, plan.domain, domains, first));
  const realCallSessions = list('realCallSessions', (i, at0): RealCallSession => {
    const at = created('realCallSessions', i, at0);
    const done = at + 5_000;
    const r = h('realCallSessions', i);
    const call = pick(calls, r);
    const repIndex = ref('users', i, r);
    // Only ids and emails of the users are needed: cheaper than building their records.
    const colleagueIndex = ref('users', i, r + 1);
    const rep = { id: uuid('users', repIndex), email: emailOf(repIndex) };
    const colleague = { id: uuid('users', colleagueIndex), email: emailOf(colleagueIndex) };
    const id = uuid('realCallSessions', i);
    // Formatted once per record: date formatting dominated the cost of a generated page.
    const createdAt = iso(at);
    const lastUpdatedAt = iso(done);
    const stamps = (suffix: string) => ({ id: `${id}-${suffix}`, createdAt, lastUpdatedAt });
    const participants = call.labeled
      ? [rep.id, ...(call.hasColleague && colleague.id !== rep.id ? [colleague.id] : [])]
      : [];
    const score = call.score?.score ?? 0;
    return {
      id,
      createdAt,
      lastUpdatedAt,
      userId: rep.id,
      call: {
        ...stamps('call'),
        assistantReferenceId: 'real-call',
        state: 'DONE',
        endedReason: null,
        providerCallId: null,
        summary: null,
        transcript: call.stored
          .replaceAll('{rep}', rep.email)
          .replaceAll('{colleague}', colleague.email),
      },
      analysis: {
        ...stamps('analysis'),
        state: call.score ? 'DONE' : 'SKIPPED',
        items: analysisItems(call.score, (n) => stamps(`item-${n}`)),
        score,
      },
      kpis: {
        ...stamps('kpis'),
        state: call.kpis ? 'DONE' : 'SKIPPED',
        listenRatio: call.kpis?.listenRatio ?? null,
        longestMonologue: call.kpis?.longestMonologue ?? null,
        talkSpeed: call.kpis?.talkSpeed ?? null,
      },
      language: call.scorecard?.language ?? 'en',
      state: 'DONE',
      completed: score >= 70,
      type: 'REAL_CALL',
      missionReferenceId: null,
      missionTitle: null,
      scorecardReferenceId: call.scorecard?.id ?? null,
      scorecardTitle: call.scorecard?.title ?? null,
      trackId: null,
      trackTitle: null,
      participantUserIds: participants,
      playedLanguage: null,
    };
  });

  // Ids end in their code (12 hex digits): the record of that code on this night, if it is this id.
  const byId =
    <T extends { id: string }>(list: Nightly<T>) =>
    (id: string): T | undefined => {
      const t = list.get(Number.parseInt(id.slice(-12), 16));
      return t?.id === id ? t : undefined;
    };
  const emailPattern = new RegExp(`^[a-z]+\\.[a-z]+(\\d+)@${plan.domain.replaceAll('.', '\\.')}$`);
  return {
    id: indexedUuid(seed, sp('org'), 0),
    name: plan.name,
    apiKeys: [
      `rcs_demo_${k}_${hash32(seed, k, 21).toString(16)}${hash32(seed, k, 22).toString(16)}`,
    ],
    settings: {
      autoCreateUsers: plan.autoCreateUsers,
      emailDomains: plan.autoCreateUsers ? domains : [],
      // D24: room for some newcomers, so the seat limit can be reached on purpose.
      ...(plan.autoCreateUsers ? { seatLimit: users.list.length + 100 } : {}),
    },
    users: users.list,
    teams: teams.list,
    scorecards: scorecards.list,
    missions: missions.list,
    tracks: tracks.list,
    sprints: sprints.list,
    trackAssignments: trackAssignments.list,
    missionAssignments: missionAssignments.list,
    realCallSessions: realCallSessions.list,
    findUserById: byId(users),
    findUserByEmail: (email) => {
      const m = emailPattern.exec(email);
      const i = m?.[1] ? Number(m[1]) - 1 : -1;
      return i >= 0 && emailOf(i) === email ? users.get(i) : undefined;
    },
    findScorecard: byId(scorecards),
    findMission: byId(missions),
    findSession: byId(realCallSessions),
  };
}

interface DemoCall {
  stored: string;
  labeled: boolean;
  hasColleague: boolean;
  scorecard: Scorecard | null;
  score: ScoreResult | null;
  kpis: Kpis | null;
}

/** Processing of one call template, once: every session of it differs only in the emails. */
function demoCall(
  template: string,
  domain: string,
  domains: string[],
  scorecards: Collection<Scorecard>,
): DemoCall {
  const rep = `rep.placeholder@${domain}`;
  const text = template
    .replaceAll('{rep}', rep)
    .replaceAll('{colleague}', `colleague.placeholder@${domain}`);
  const facts = transcriptFacts(text, domains);
  const scorecard = chooseScorecard(scorecards, () => undefined, {}, allLines(facts));
  return {
    stored: facts.stored
      .replaceAll(rep, '{rep}')
      .replaceAll(`colleague.placeholder@${domain}`, '{colleague}'),
    labeled: facts.speakerLabeled,
    hasColleague: template.includes('{colleague}'),
    scorecard,
    score: scorecard ? scoreTranscript(scorecard, repLines(facts, rep), allLines(facts)) : null,
    kpis: kpisOf(facts, rep),
  };
}
