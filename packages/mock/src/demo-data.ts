import type { Kpis } from '@rcs/transcript';
import { type Collection, lazyCollection, slice } from './collection.js';
import type { Dataset, Mission, OrgData, Scorecard } from './dataset.js';
import type { Fixture } from './fixture.js';
import { hash32, indexedHex24, indexedUuid, uuidIndex } from './random.js';
import { chooseScorecard, type ScoreResult, scoreTranscript } from './scoring.js';
import { allLines, kpisOf, repLines, transcriptFacts } from './transcript-facts.js';
import type {
  Language,
  MissionAssignmentExportRecord,
  RealCallSession,
  SprintExportRecord,
  TeamExportRecord,
  TrackAssignmentExportRecord,
  TrackExportRecord,
  UserExportRecord,
} from './wire.js';

/**
 * The demo dataset (no fixture): deterministic from `seed`, sized by `records` (the total of
 * export records over all organizations). Record `i` of every list is computed on demand from
 * (seed, i), and ids and emails map back to their index, so a million records start in
 * milliseconds and cost memory only while a page is being answered.
 */
export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_RECORDS = 2000;
/** Below this the minimum counts per list (a few scorecards, missions, …) do not fit. */
export const MIN_DEMO_RECORDS = 60;

export interface DemoOptions {
  seed?: number;
  records?: number;
}

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 6, 8, 0, 0);
const SPAN = 300 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const FIRST = ['ana', 'ben', 'chloe', 'dario', 'elif', 'finn', 'greta', 'hugo', 'ines', 'jonas'];
const LAST = [
  'ruiz',
  'okafor',
  'meyer',
  'rossi',
  'yilmaz',
  'berg',
  'novak',
  'silva',
  'kim',
  'dubois',
];
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const SCORECARDS: { title: string; language: Language; items: Scorecard['items'] }[] = [
  {
    title: 'Discovery call',
    language: 'en',
    items: [
      { name: 'Asks about budget', keywords: ['budget', 'spend'] },
      { name: 'Finds the decision maker', keywords: ['decision', 'sign off', 'approve'] },
      { name: 'Agrees next steps', keywords: ['next step', 'follow up', 'calendar'] },
    ],
  },
  {
    title: 'Product demo',
    language: 'en',
    items: [
      { name: 'Connects features to pain', keywords: ['pain', 'problem', 'challenge'] },
      { name: 'Shows the dashboard', keywords: ['dashboard', 'report'] },
    ],
  },
  {
    title: 'Negotiation',
    language: 'en',
    items: [
      { name: 'Defends the price', keywords: ['price', 'value', 'discount'] },
      { name: 'Trades concessions', keywords: ['in return', 'if you', 'term'] },
    ],
  },
  {
    title: 'Erstgespräch',
    language: 'de',
    items: [{ name: 'Fragt nach dem Budget', keywords: ['budget', 'kosten'] }],
  },
];

/** Speaker-labeled SRT calls; `{rep}`, `{colleague}` are replaced by users' emails. */
const CALLS: string[] = [
  `1
00:00:01,000 --> 00:00:05,000
{rep}: Thanks for joining. What budget do you have in mind for this year?

2
00:00:05,500 --> 00:00:09,000
buyer@client-co.example: Around fifty thousand, but I need my CFO to approve it.

3
00:00:09,200 --> 00:00:14,000
{rep}: Understood. Who else is part of the decision? Shall we book a follow up in the calendar?

4
00:00:14,500 --> 00:00:17,000
buyer@client-co.example: Yes, next Tuesday works.
`,
  `1
00:00:00,500 --> 00:00:04,000
{rep}: Let me show you the dashboard and the weekly report.

2
00:00:04,200 --> 00:00:07,500
{colleague}: I can add how other teams solved the same problem.

3
00:00:08,000 --> 00:00:11,000
buyer@client-co.example: Our challenge is the manual work at 10:30 every day.

4
00:00:11,200 --> 00:00:15,000
{rep}: That pain goes away: the report is built for you.
`,
  `1
00:00:02,000 --> 00:00:06,000
{rep}: The price reflects the value you get in the first year.

2
00:00:06,500 --> 00:00:09,000
Client: Can you do a discount?

3
00:00:09,500 --> 00:00:13,000
{rep}: If you sign a two-year term, in return we can talk.
`,
  `Plain notes of a short call: we talked about budget, the next step and a follow up next week.`,
];

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

interface OrgPlan {
  index: number;
  name: string;
  domain: string;
  autoCreateUsers: boolean;
  counts: Counts;
}

interface Counts {
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

const total = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

function countsFor(records: number): Counts {
  const share = (w: number, min: number, max = Number.POSITIVE_INFINITY) =>
    Math.min(max, Math.max(min, Math.floor(records * w)));
  const c: Counts = {
    scorecards: share(0.005, 3, SCORECARDS.length * 10),
    missions: share(0.01, 4, 500),
    tracks: share(0.005, 3, 200),
    teams: share(0.005, 2, 500),
    users: share(0.1, 6),
    sprints: share(0.02, 1),
    trackAssignments: share(0.15, 2),
    missionAssignments: share(0.25, 2),
    realCallSessions: 0,
  };
  c.realCallSessions = Math.max(1, records - total(c));
  return c;
}

export interface MockInfo {
  /** Every organization's API keys, first organization first. */
  apiKeys: string[];
  /** Emails of existing reps of the first organization, usable with `apiKeys[0]` (R2). */
  repEmails: string[];
  organizations: {
    id: string;
    name: string;
    apiKeys: string[];
    repEmails: string[];
    emailDomains: string[];
    autoCreateUsers: boolean;
    seatLimit?: number;
  }[];
  /** The HS256 secret for bearer tokens (D22), when the data has one. */
  jwtSecret?: string;
}

export interface DemoDataset {
  dataset: Dataset;
  info: MockInfo;
}

/** The demo organizations: a main one with every feature, and a small neighbour for D23 probes. */
export function generateDemoDataset(options: DemoOptions = {}): DemoDataset {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const records = options.records ?? DEFAULT_DEMO_RECORDS;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer (got ${seed})`);
  if (!Number.isSafeInteger(records) || records < MIN_DEMO_RECORDS) {
    throw new RangeError(`records must be an integer >= ${MIN_DEMO_RECORDS} (got ${records})`);
  }
  const neighbour = countsFor(MIN_DEMO_RECORDS / 2);
  const plans: OrgPlan[] = [
    {
      index: 0,
      name: 'Demo Sales',
      domain: 'demo-sales.example',
      autoCreateUsers: true,
      counts: countsFor(records - total(neighbour)),
    },
    {
      index: 1,
      name: 'Neighbour Org',
      domain: 'neighbour.example',
      autoCreateUsers: false,
      counts: neighbour,
    },
  ];
  const organizations = plans.map((p) => demoOrg(seed, p));
  const jwtSecret = `demo-jwt-secret-${hash32(seed, 11).toString(16)}-${hash32(seed, 12).toString(16)}`;
  const dataset: Dataset = {
    jwtSecret,
    identityProvider: {
      // An address the identity provider knows outside every organization (409), and one it
      // refuses once (502), so a newcomer can try both.
      existingEmails: ['taken@demo-sales.example'],
      refuse: { 'flaky@demo-sales.example': 1 },
    },
    organizations,
  };
  return { dataset, info: infoOf(dataset) };
}

/** `info` for any dataset: keys, a few rep emails per organization, the settings. */
export function infoOf(dataset: Dataset): MockInfo {
  const organizations = dataset.organizations.map((o) => {
    const repEmails: string[] = [];
    for (let i = 0; i < o.users.length && repEmails.length < 3; i++) {
      const e = o.users.at(i).email;
      if (e) repEmails.push(e);
    }
    return {
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      repEmails,
      emailDomains: o.settings.emailDomains,
      autoCreateUsers: o.settings.autoCreateUsers,
      ...(o.settings.seatLimit === undefined ? {} : { seatLimit: o.settings.seatLimit }),
    };
  });
  return {
    apiKeys: organizations.flatMap((o) => o.apiKeys),
    // The first organization's: they go with the first API key (what `rcs mock` prints).
    repEmails: organizations[0]?.repEmails ?? [],
    organizations,
    ...(dataset.jwtSecret === undefined ? {} : { jwtSecret: dataset.jwtSecret }),
  };
}

function demoOrg(seed: number, plan: OrgPlan): OrgData {
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
        items: (call.score?.items ?? []).map((it, n) => ({
          ...stamps(`item-${n + 1}`),
          state: 'DONE' as const,
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
        })),
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

/**
 * The demo dataset written out as a fixture (mock-fixture.md), e.g. to start from it and edit.
 * Materialises every record: meant for small sizes.
 */
export function generateDemoFixture(options: DemoOptions = {}): Fixture {
  const { dataset } = generateDemoDataset(options);
  const all = <T>(c: Collection<T>) => slice(c, 0, c.length);
  return {
    ...(dataset.jwtSecret === undefined ? {} : { jwtSecret: dataset.jwtSecret }),
    identityProvider: {
      existingEmails: dataset.identityProvider.existingEmails,
      refuse: dataset.identityProvider.refuse,
    },
    organizations: dataset.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      settings: o.settings,
      users: all(o.users),
      teams: all(o.teams),
      scorecards: all(o.scorecards),
      missions: all(o.missions),
      tracks: all(o.tracks),
      sprints: all(o.sprints),
      trackAssignments: all(o.trackAssignments),
      missionAssignments: all(o.missionAssignments),
      realCallSessions: all(
        o.realCallSessions,
      ) as Fixture['organizations'][number]['realCallSessions'],
    })),
  };
}
