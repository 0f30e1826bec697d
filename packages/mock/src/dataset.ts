import { arrayCollection, type Collection, compareD9 } from './collection.js';
import type { Fixture, FixtureMission, FixtureScorecard } from './fixture.js';
import type {
  MissionAssignmentExportRecord,
  RealCallSession,
  SprintExportRecord,
  TeamExportRecord,
  TrackAssignmentExportRecord,
  TrackExportRecord,
  UserExportRecord,
} from './wire.js';

export type Scorecard = FixtureScorecard;
export type Mission = FixtureMission;

interface OrgSettings {
  autoCreateUsers: boolean;
  /** Lowercase; `[]` means none configured. */
  emailDomains: string[];
  /** Absent: unlimited seats (D24). */
  seatLimit?: number;
}

/**
 * One organization's starting data, every list already in D9 order. Fixture organizations hold
 * arrays; the demo dataset holds collections that make record `i` on demand, with finders that
 * map an id or email back to its index, so a million records cost nothing until read.
 */
export interface OrgData {
  id: string;
  name: string;
  apiKeys: string[];
  settings: OrgSettings;
  users: Collection<UserExportRecord>;
  teams: Collection<TeamExportRecord>;
  scorecards: Collection<Scorecard>;
  missions: Collection<Mission>;
  tracks: Collection<TrackExportRecord>;
  sprints: Collection<SprintExportRecord>;
  trackAssignments: Collection<TrackAssignmentExportRecord>;
  missionAssignments: Collection<MissionAssignmentExportRecord>;
  realCallSessions: Collection<RealCallSession>;
  findUserById(id: string): UserExportRecord | undefined;
  /** `email` already trimmed and lowercased (D6). */
  findUserByEmail(email: string): UserExportRecord | undefined;
  findScorecard(id: string): Scorecard | undefined;
  findMission(id: string): Mission | undefined;
  findSession(id: string): RealCallSession | undefined;
}

export interface Dataset {
  jwtSecret?: string;
  identityProvider: { existingEmails: string[]; refuse: Record<string, number> };
  organizations: OrgData[];
}

/** D9 order, as a collection; scorecards, missions, tracks and teams carry no createdAt: by id. */
const sorted = <T extends { id: string; createdAt?: string }>(items: readonly T[] = []) =>
  arrayCollection([...items].sort(compareD9));

const finder = <T>(items: readonly T[], key: (t: T) => string | null) => {
  // Keys in lowercase: fixture UUIDs may be written in uppercase, and ids compare
  // case-insensitively (emails are lowercase already, D6).
  const m = new Map<string, T>();
  for (const t of items) {
    const k = key(t);
    if (k !== null) m.set(k.toLowerCase(), t);
  }
  return (k: string) => m.get(k.toLowerCase());
};

/** A validated fixture (see `loadFixture`) as a dataset: lists sorted by D9, lookups indexed. */
export function datasetFromFixture(f: Fixture): Dataset {
  const refuse: Record<string, number> = {};
  for (const [email, n] of Object.entries(f.identityProvider?.refuse ?? {})) {
    refuse[email.trim().toLowerCase()] = n; // D6
  }
  return {
    jwtSecret: f.jwtSecret,
    identityProvider: { existingEmails: f.identityProvider?.existingEmails ?? [], refuse },
    organizations: f.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      settings: o.settings,
      users: sorted(o.users),
      teams: sorted(o.teams),
      scorecards: sorted(o.scorecards),
      missions: sorted(o.missions),
      tracks: sorted(o.tracks),
      sprints: sorted(o.sprints),
      trackAssignments: sorted(o.trackAssignments),
      missionAssignments: sorted(o.missionAssignments),
      realCallSessions: sorted(o.realCallSessions),
      findUserById: finder(o.users, (u) => u.id),
      findUserByEmail: finder(o.users, (u) => u.email),
      findScorecard: finder(o.scorecards, (s) => s.id),
      findMission: finder(o.missions, (m) => m.id),
      findSession: finder(o.realCallSessions ?? [], (s) => s.id),
    })),
  };
}
