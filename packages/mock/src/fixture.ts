import { dateTimeProblem } from '@rcs/client/internal';
import { EMAIL_PATTERN, HEX24_PATTERN, UUID_PATTERN } from '@rcs/transcript';
import { z } from 'zod';
import { KINDS, type Kind } from './demo/counts.js';
import type {
  components,
  MissionAssignmentExportRecord,
  RealCallSession,
  SprintExportRecord,
  TeamExportRecord,
  TrackAssignmentExportRecord,
  TrackExportRecord,
  UserExportRecord,
} from './wire.js';
import { LANGUAGES } from './wire.js';

type PlayedLanguage = NonNullable<components['schemas']['PlayedLanguage']>;

/**
 * The fixture format of mock-fixture.md, validated with zod. Unknown keys are errors (typos must
 * not pass silently); every message names the JSON path, e.g.
 * `organizations[0].users[3].email: invalid email`.
 */

const uuid = z.string().regex(UUID_PATTERN, 'invalid UUID');
const hex24 = z.string().regex(HEX24_PATTERN, 'invalid id (24 lowercase hex characters)');
const email = z.string().regex(EMAIL_PATTERN, 'invalid email');
/** mock-fixture.md: ISO 8601 UTC with Z; and a date-time that exists (D29's check). */
const dateTime = z.string().superRefine((text, ctx) => {
  const problem = text[10] === 'T' && text.endsWith('Z') ? dateTimeProblem(text) : 'not UTC with Z';
  if (problem) ctx.addIssue({ code: 'custom', message: `invalid date-time: ${problem}` });
});
const language = z.enum(LANGUAGES, {
  message: `invalid language (one of ${LANGUAGES.join(', ')})`,
});
const domain = z
  .string()
  .regex(/^([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/, 'invalid email domain')
  .transform((d) => d.toLowerCase());

const userSchema = z.strictObject({
  id: uuid,
  // D6: stored emails are lowercase.
  email: email.transform((e) => e.trim().toLowerCase()).nullable(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  teamIds: z.array(uuid),
  createdAt: dateTime,
});
const teamSchema = z.strictObject({ id: uuid, name: z.string() });
const scorecardSchema = z.strictObject({
  id: hex24,
  title: z.string(),
  language,
  items: z.array(
    z.strictObject({
      name: z.string().min(1),
      keywords: z.array(z.string().trim().min(1).toLowerCase()).min(1),
    }),
  ),
});
const missionSchema = z.strictObject({
  id: hex24,
  title: z.string(),
  language,
  scorecardId: hex24,
});
const trackSchema = z.strictObject({
  id: hex24,
  title: z.string(),
  description: z.string(),
  missionIds: z.array(hex24),
  archived: z.boolean(),
});
const sprintSchema = z.strictObject({
  id: uuid,
  title: z.string(),
  createdAt: dateTime,
  lastUpdatedAt: dateTime,
  userId: uuid,
  dueDate: dateTime,
  assignedTeamId: uuid,
});
/** The first fields of a record that changes: its id, when it was created and last updated. */
const stamps = { id: z.string(), createdAt: dateTime, lastUpdatedAt: dateTime };
const assignment = {
  ...stamps,
  id: uuid,
  learnerUserId: uuid,
  startDate: dateTime,
  dueDate: dateTime.nullable(),
  status: z.enum(['completed', 'open']),
  completedAt: dateTime.nullable(),
  assignedByUserId: uuid.nullable(),
  sprintId: uuid.nullable(),
};
const trackAssignmentSchema = z.strictObject({
  ...assignment,
  trackId: hex24,
  completedMissionIds: z.array(hex24),
});
const missionAssignmentSchema = z.strictObject({ ...assignment, missionId: hex24 });

const nullableString = z.string().nullable();
/** The API's PlayedLanguage values (openapi.yaml). */
const PLAYED_LANGUAGES =
  'en de fr es it nl pl zh ja id tr pt el ko vi hi ms th hr ro bg sv no yue'.split(' ') as [
    PlayedLanguage,
    ...PlayedLanguage[],
  ];
const behaviourSchema = z.strictObject({
  evidence: z.array(z.string()),
  verdict: z.string(),
  score: z.number(),
});
const analysisItemSchema = z.strictObject({
  ...stamps,
  state: z.enum(['PROCESSING', 'DONE', 'ERROR']),
  score: z.number().min(0).max(100),
  name: nullableString.optional(),
  explanation: nullableString.optional(),
  suggestion: nullableString.optional(),
  conversationItemReferenceId: nullableString.optional(),
  solved: z.enum(['undetected', 'notSolved', 'partlySolved', 'solved']).nullable().optional(),
  behaviours: z.array(behaviourSchema).default([]),
});
const sessionSchema = z.strictObject({
  ...stamps,
  id: uuid,
  userId: uuid,
  call: z.strictObject({
    ...stamps,
    assistantReferenceId: z.string(),
    state: z.enum(['PENDING', 'DONE', 'DATA-NOT-AVAILABLE', 'CAN-NOT-PROCESS-TRANSCRIPT']),
    endedReason: nullableString.optional(),
    providerCallId: nullableString.optional(),
    summary: nullableString.optional(),
    transcript: nullableString.optional(),
  }),
  analysis: z.strictObject({
    ...stamps,
    state: z.enum(['PENDING', 'PROCESSING', 'DONE', 'SKIPPED']),
    items: z.array(analysisItemSchema),
    score: z.number().min(0).max(100),
  }),
  kpis: z.strictObject({
    ...stamps,
    state: z.enum(['PENDING', 'PROCESSING', 'DONE', 'SKIPPED']),
    listenRatio: z.number().min(0).max(1).nullable().optional(),
    longestMonologue: z.number().min(0).nullable().optional(),
    talkSpeed: z.number().min(0).nullable().optional(),
  }),
  language,
  // mock-fixture.md: pre-existing sessions are "already DONE".
  state: z.literal('DONE', { message: 'pre-existing sessions must be DONE' }),
  completed: z.boolean(),
  type: z.literal('REAL_CALL'),
  missionReferenceId: hex24.nullable().optional(),
  missionTitle: nullableString.optional(),
  scorecardReferenceId: hex24.nullable().optional(),
  scorecardTitle: nullableString.optional(),
  trackId: nullableString.optional(),
  trackTitle: nullableString.optional(),
  participantUserIds: z.array(uuid).optional(),
  playedLanguage: z.enum(PLAYED_LANGUAGES).nullable().optional(),
});

const organizationSchema = z.strictObject({
  id: uuid,
  name: z.string().min(1),
  apiKeys: z.array(z.string().min(8, 'API keys need at least 8 characters')),
  settings: z.strictObject({
    autoCreateUsers: z.boolean(),
    emailDomains: z.array(domain),
    seatLimit: z.number().int().min(0).optional(),
  }),
  users: z.array(userSchema),
  teams: z.array(teamSchema),
  scorecards: z.array(scorecardSchema),
  missions: z.array(missionSchema),
  tracks: z.array(trackSchema),
  sprints: z.array(sprintSchema),
  trackAssignments: z.array(trackAssignmentSchema),
  missionAssignments: z.array(missionAssignmentSchema),
  realCallSessions: z.array(sessionSchema).optional(),
});

const fixtureSchema = z.strictObject({
  jwtSecret: z.string().min(32, 'jwtSecret needs at least 32 characters (HS256)').optional(),
  identityProvider: z
    .strictObject({
      existingEmails: z.array(email.transform((e) => e.trim().toLowerCase())).optional(),
      refuse: z.record(email, z.number().int().min(0)).optional(),
    })
    .optional(),
  organizations: z.array(organizationSchema).min(1, 'at least one organization is needed'),
});

export type Fixture = z.output<typeof fixtureSchema>;
type FixtureOrganization = Fixture['organizations'][number];
type Row<K extends Kind> = NonNullable<FixtureOrganization[K]>[number];
export type FixtureScorecard = FixtureOrganization['scorecards'][number];
export type FixtureMission = FixtureOrganization['missions'][number];

// Two-way checks: the fixture records are the export records of openapi.yaml, so a drift of
// either side fails the type check.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShapes: [
  Same<z.output<typeof userSchema>, UserExportRecord>,
  Same<z.output<typeof teamSchema>, TeamExportRecord>,
  Same<z.output<typeof trackSchema>, TrackExportRecord>,
  Same<z.output<typeof sprintSchema>, SprintExportRecord>,
  Same<z.output<typeof trackAssignmentSchema>, TrackAssignmentExportRecord>,
  Same<z.output<typeof missionAssignmentSchema>, MissionAssignmentExportRecord>,
] = [true, true, true, true, true, true];
void sameShapes;
// A fixture session is a RealCallSession narrowed to DONE.
const sessionFits: z.output<typeof sessionSchema> extends RealCallSession ? true : false = true;
void sessionFits;

const FORMAT_HINT =
  'the format is FIXTURE.md of @rcs/mock (fixtures/acme.json is an example); ' +
  '`rcs mock --write-fixture FILE` or generateDemoFixture() writes a complete fixture to edit';

/** A fixture that failed validation; `issues` lists every problem as `path: message`. */
export class FixtureError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid fixture:\n  ${issues.join('\n  ')}`);
    this.name = 'FixtureError';
  }
}

/** `organizations[0].users[3].email`, the path style of mock-fixture.md. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(root)';
}

/** Validates and normalises a fixture object (D6 emails lowercase); throws FixtureError. */
export function loadFixture(json: unknown): Fixture {
  const parsed = fixtureSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    // Missing keys: one line per object naming all of them, and where the format is described.
    const missing = new Map<string, string[]>();
    const issues: string[] = [];
    for (const i of parsed.error.issues) {
      if (i.code === 'invalid_type' && i.input === undefined && i.path.length > 0) {
        const at = formatPath(i.path.slice(0, -1));
        missing.set(at, [...(missing.get(at) ?? []), String(i.path.at(-1))]);
      } else {
        const message =
          i.code === 'unrecognized_keys' ? `unknown key(s) ${i.keys.join(', ')}` : i.message;
        issues.push(`${formatPath(i.path)}: ${message}`);
      }
    }
    const absent = [...missing].map(([at, keys]) => `${at}: missing ${keys.join(', ')}`);
    throw new FixtureError([...absent, ...issues, ...(absent.length > 0 ? [FORMAT_HINT] : [])]);
  }
  const problems = integrityProblems(parsed.data);
  if (problems.length > 0) throw new FixtureError(problems);
  return parsed.data;
}

/** Every reference a fixture holds: [list, field (an id or an array of ids), list it refers to]. */
const REFERENCES: readonly { [K in Kind]: readonly [K, keyof Row<K>, Kind] }[Kind][] = [
  ['users', 'teamIds', 'teams'],
  ['missions', 'scorecardId', 'scorecards'],
  ['tracks', 'missionIds', 'missions'],
  ['sprints', 'userId', 'users'],
  ['sprints', 'assignedTeamId', 'teams'],
  ...(['trackAssignments', 'missionAssignments'] as const).flatMap((a) =>
    (['learnerUserId', 'assignedByUserId', 'sprintId'] as const).map(
      (f) => [a, f, f === 'sprintId' ? 'sprints' : 'users'] as const,
    ),
  ),
  ['trackAssignments', 'trackId', 'tracks'],
  ['trackAssignments', 'completedMissionIds', 'missions'],
  ['missionAssignments', 'missionId', 'missions'],
  ['realCallSessions', 'userId', 'users'],
  ['realCallSessions', 'missionReferenceId', 'missions'],
  ['realCallSessions', 'scorecardReferenceId', 'scorecards'],
  ['realCallSessions', 'participantUserIds', 'users'],
];

/** Referential integrity and uniqueness: every referenced id exists in the same organization. */
function integrityProblems(f: Fixture): string[] {
  const out: string[] = [];
  const unique = (seen: Map<string, string>, key: string, path: string) => {
    const first = seen.get(key);
    if (first !== undefined) out.push(`${path}: duplicate of ${first}`);
    else seen.set(key, path);
  };
  const apiKeys = new Map<string, string>();
  const emails = new Map<string, string>();
  const orgIds = new Map<string, string>();
  f.organizations.forEach((org, o) => {
    const at = `organizations[${o}]`;
    unique(orgIds, org.id, `${at}.id`);
    for (const [i, k] of org.apiKeys.entries()) unique(apiKeys, k, `${at}.apiKeys[${i}]`);
    // The lists as records of fields; REFERENCES names the fields, checked against each list.
    const lists: { [K in Kind]?: readonly { id: string; [field: string]: unknown }[] } = org;
    const ids = new Map(KINDS.map((kind) => [kind, new Map<string, string>()]));
    for (const [kind, m] of ids) {
      for (const [i, r] of (lists[kind] ?? []).entries()) unique(m, r.id, `${at}.${kind}[${i}].id`);
    }
    org.users.forEach((u, i) => {
      if (u.email) unique(emails, u.email, `${at}.users[${i}].email`);
    });
    for (const [list, field, target] of REFERENCES) {
      (lists[list] ?? []).forEach((r, i) => {
        const value = r[field];
        const all = Array.isArray(value) ? value.map((v, j) => [v, `[${j}]`]) : [[value, '']];
        for (const [id, index] of all) {
          if (typeof id === 'string' && !ids.get(target)?.has(id)) {
            const kind = target.slice(0, -1);
            out.push(`${at}.${list}[${i}].${field}${index}: ${kind} ${id} does not exist in ${at}`);
          }
        }
      });
    }
    if (org.settings.seatLimit !== undefined && org.users.length > org.settings.seatLimit) {
      out.push(
        `${at}.settings.seatLimit: ${org.users.length} users already exceed the seat limit ${org.settings.seatLimit}`,
      );
    }
  });
  // mock-fixture.md: existingEmails are addresses "outside every organization of the fixture";
  // a member listed there would make R2 (create the rep) and R3 (conflict) contradict each other.
  (f.identityProvider?.existingEmails ?? []).forEach((e, i) => {
    const member = emails.get(e.trim().toLowerCase());
    if (member !== undefined) {
      out.push(
        `identityProvider.existingEmails[${i}]: ${e} is a member email (${member}); list only addresses outside every organization`,
      );
    }
  });
  return out;
}
