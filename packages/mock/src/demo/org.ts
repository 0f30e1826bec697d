import type { Kpis } from '@rcs/transcript';
import { type Collection, lazyCollection } from '../collection.js';
import type { Mission, OrgData, Scorecard } from '../dataset.js';
import { analysisItems } from '../lifecycle.js';
import { hash32, indexedHex24, indexedUuid, uuidIndex } from '../random.js';
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

/**
 * One demo organization as lazy collections: record `i` of every list is computed from
 * (seed, i); ids and emails map back to their index, so lookups need no index either.
 */

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 6, 8, 0, 0);
const SPAN = 300 * DAY;
const iso = (ms: number): string => new Date(ms).toISOString();

const SPACE = {
  org: 1,
  user: 2,
  team: 3,
  sprint: 4,
  trackAssignment: 5,
  missionAssignment: 6,
  session: 7,
  scorecard: 8,
  mission: 9,
  track: 10,
} as const;

export interface OrgPlan {
  index: number;
  name: string;
  domain: string;
  autoCreateUsers: boolean;
  counts: Counts;
}

export interface Counts {
  scorecards: number;
  missions: number;
  tracks: number;
  teams: number;
  users: number;
  sprints: number;
  trackAssignments: number;
  missionAssignments: number;
  realCallSessions: number;
}

export function demoOrg(seed: number, plan: OrgPlan): OrgData {
  const c = plan.counts;
  const k = plan.index;
  const sp = (space: number) => space * 16 + k;
  const uuid = (space: number, i: number) => indexedUuid(seed, sp(space), i);
  const hex = (space: number, i: number) => indexedHex24(seed, sp(space), i);
  const h = (space: number, i: number, salt = 0) => hash32(seed, sp(space), i, salt);
  // createdAt of record i of a list of n: strictly increasing, so the lists are in D9 order.
  const created = (n: number, i: number) => T0 + Math.floor((i * SPAN) / Math.max(1, n));
  const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T;

  const scorecards: Collection<Scorecard> = lazyCollection(c.scorecards, (i) => {
    const t = pick(SCORECARDS, i);
    const round = Math.floor(i / SCORECARDS.length);
    return {
      id: hex(SPACE.scorecard, i),
      title: round === 0 ? t.title : `${t.title} ${round + 1}`,
      language: t.language,
      items: t.items,
    };
  });
  const missions: Collection<Mission> = lazyCollection(c.missions, (i) => {
    const sc = scorecards.at(i % c.scorecards);
    return {
      id: hex(SPACE.mission, i),
      title: `${sc.title} practice ${i + 1}`,
      language: sc.language,
      scorecardId: sc.id,
    };
  });
  const tracks: Collection<TrackExportRecord> = lazyCollection(c.tracks, (i) => ({
    id: hex(SPACE.track, i),
    title: `Track ${i + 1}`,
    description: `Missions ${(i % c.missions) + 1} to ${((i + 2) % c.missions) + 1}.`,
    missionIds: [...new Set([0, 1, 2].map((d) => missions.at((i + d) % c.missions).id))],
    // Some tracks are archived (soft-deleted) so the D8 filter has something to do.
    archived: i % 3 === 1,
  }));
  const teams: Collection<TeamExportRecord> = lazyCollection(c.teams, (i) => ({
    id: uuid(SPACE.team, i),
    name: `${pick(['Enterprise', 'Mid-market', 'SMB', 'Partners', 'Renewals'], i)} ${Math.floor(i / 5) + 1}`,
  }));
  const emailOf = (i: number) =>
    `${pick(FIRST, i)}.${pick(LAST, Math.floor(i / FIRST.length))}${i + 1}@${plan.domain}`;
  const users: Collection<UserExportRecord> = lazyCollection(c.users, (i) => ({
    id: uuid(SPACE.user, i),
    email: emailOf(i),
    firstName: cap(pick(FIRST, i)),
    lastName: cap(pick(LAST, Math.floor(i / FIRST.length))),
    teamIds: [teams.at(i % c.teams).id],
    createdAt: iso(created(c.users, i)),
  }));
  const sprints: Collection<SprintExportRecord> = lazyCollection(c.sprints, (i) => {
    const at = created(c.sprints, i);
    return {
      id: uuid(SPACE.sprint, i),
      title: `Sprint ${i + 1}`,
      createdAt: iso(at),
      lastUpdatedAt: iso(at + DAY),
      userId: users.at(h(SPACE.sprint, i) % c.users).id,
      dueDate: iso(at + 14 * DAY),
      assignedTeamId: teams.at(i % c.teams).id,
    };
  });
  const assignment = (space: number, n: number, i: number) => {
    const at = created(n, i);
    const r = h(space, i);
    const completed = r % 3 === 0;
    const inSprint = r % 5 === 0 && c.sprints > 0;
    return {
      id: uuid(space, i),
      createdAt: iso(at),
      lastUpdatedAt: iso(completed ? at + 3 * DAY : at),
      learnerUserId: users.at(r % c.users).id,
      startDate: iso(at),
      dueDate: r % 2 === 0 ? iso(at + 30 * DAY) : null,
      status: completed ? ('completed' as const) : ('open' as const),
      completedAt: completed ? iso(at + 3 * DAY) : null,
      assignedByUserId: r % 7 === 0 ? null : users.at((r >>> 8) % c.users).id,
      sprintId: inSprint ? sprints.at((r >>> 4) % c.sprints).id : null,
    };
  };
  const trackAssignments: Collection<TrackAssignmentExportRecord> = lazyCollection(
    c.trackAssignments,
    (i) => {
      const a = assignment(SPACE.trackAssignment, c.trackAssignments, i);
      const track = tracks.at(i % c.tracks);
      return {
        ...a,
        trackId: track.id,
        completedMissionIds:
          a.status === 'completed' ? track.missionIds : track.missionIds.slice(0, i % 2),
      };
    },
  );
  const missionAssignments: Collection<MissionAssignmentExportRecord> = lazyCollection(
    c.missionAssignments,
    (i) => ({
      ...assignment(SPACE.missionAssignment, c.missionAssignments, i),
      missionId: missions.at(i % c.missions).id,
    }),
  );

  const domains = [plan.domain];
  const calls = CALLS.map((text) => demoCall(text, plan.domain, domains, scorecards));
  const realCallSessions: Collection<RealCallSession> = lazyCollection(c.realCallSessions, (i) => {
    const at = created(c.realCallSessions, i);
    const done = at + 5_000;
    const r = h(SPACE.session, i);
    const call = pick(calls, r);
    const repIndex = r % c.users;
    // Only ids and emails of the users are needed: cheaper than building their records.
    const colleagueIndex = (repIndex + 1) % c.users;
    const rep = { id: uuid(SPACE.user, repIndex), email: emailOf(repIndex) };
    const colleague = { id: uuid(SPACE.user, colleagueIndex), email: emailOf(colleagueIndex) };
    const id = uuid(SPACE.session, i);
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

  const byIndex =
    <T>(list: Collection<T>, space: number) =>
    (id: string): T | undefined => {
      const i = uuidIndex(seed, sp(space), id);
      return i !== undefined && i < list.length ? list.at(i) : undefined;
    };
  const byHex =
    <T extends { id: string }>(list: Collection<T>) =>
    (id: string): T | undefined => {
      const i = Number.parseInt(id.slice(12), 16);
      if (!Number.isSafeInteger(i) || i >= list.length) return undefined;
      const t = list.at(i);
      return t.id === id ? t : undefined;
    };
  const emailPattern = new RegExp(`^[a-z]+\\.[a-z]+(\\d+)@${plan.domain.replaceAll('.', '\\.')}$`);
  return {
    id: indexedUuid(seed, sp(SPACE.org), 0),
    name: plan.name,
    apiKeys: [
      `rcs_demo_${k}_${hash32(seed, k, 21).toString(16)}${hash32(seed, k, 22).toString(16)}`,
    ],
    settings: {
      autoCreateUsers: plan.autoCreateUsers,
      emailDomains: plan.autoCreateUsers ? domains : [],
      // D24: room for some newcomers, so the seat limit can be reached on purpose.
      ...(plan.autoCreateUsers ? { seatLimit: c.users + 100 } : {}),
    },
    users,
    teams,
    scorecards,
    missions,
    tracks,
    sprints,
    trackAssignments,
    missionAssignments,
    realCallSessions,
    findUserById: byIndex(users, SPACE.user),
    findUserByEmail: (email) => {
      const m = emailPattern.exec(email);
      const i = m?.[1] ? Number(m[1]) - 1 : -1;
      if (i < 0 || i >= c.users || emailOf(i) !== email) return undefined;
      return users.at(i);
    },
    findScorecard: byHex(scorecards),
    findMission: byHex(missions),
    findSession: byIndex(realCallSessions, SPACE.session),
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
