import { emailDomain, normalizeEmail } from '@rcs/transcript';
import { compareD9, MergedCollection } from './collection.js';
import type { Dataset, OrgData } from './dataset.js';
import { doneAtMs, type LiveSession, type StoredSession } from './lifecycle.js';
import { hash32, randomUuid, rng } from './random.js';
import { scoreTranscript } from './scoring.js';
import { allLines, kpisOf, repLines } from './transcript-facts.js';
import type { UserExportRecord } from './wire.js';

/** Why the mock created a user: the rep of an upload (R3) or a participant (R5, D15). */
export interface CreatedUser {
  user: UserExportRecord;
  reason: 'rep' | 'participant';
  /** R3: created users have the Member role and must set a password at first login. */
  role: 'Member';
  mustSetPassword: true;
  sessionId: string;
}

/** One organization's mutable state over its immutable starting data (D23: nothing shared). */
export class OrgState {
  readonly users: MergedCollection<UserExportRecord>;
  readonly sessions: MergedCollection<StoredSession>;
  private readonly addedUsersById = new Map<string, UserExportRecord>();
  private readonly addedUsersByEmail = new Map<string, UserExportRecord>();
  private readonly addedSessions = new Map<string, LiveSession>();
  readonly createdUsers: CreatedUser[] = [];

  constructor(readonly data: OrgData) {
    this.users = new MergedCollection(data.users, compareD9);
    this.sessions = new MergedCollection<StoredSession>(data.realCallSessions, compareD9);
  }

  get id(): string {
    return this.data.id;
  }

  /** UUIDs compare case-insensitively: every id index is keyed in lowercase. */
  findUserById(id: string): UserExportRecord | undefined {
    const k = id.toLowerCase();
    return this.addedUsersById.get(k) ?? this.data.findUserById(k);
  }

  /** D6: case-insensitive after trimming. */
  findUserByEmail(email: string): UserExportRecord | undefined {
    const e = normalizeEmail(email);
    return this.addedUsersByEmail.get(e) ?? this.data.findUserByEmail(e);
  }

  findSession(id: string): StoredSession | undefined {
    const k = id.toLowerCase();
    return this.addedSessions.get(k) ?? this.data.findSession(k);
  }

  /** D24: an organization's seat count is its number of users. */
  get seatsUsed(): number {
    return this.users.length;
  }

  hasFreeSeat(): boolean {
    const limit = this.data.settings.seatLimit;
    return limit === undefined || this.seatsUsed < limit;
  }

  /** R3 / D15: the domain is one of the configured ones (none configured: no match). */
  domainAllowed(email: string): boolean {
    return this.data.settings.emailDomains.includes(emailDomain(email));
  }

  addUser(created: CreatedUser): void {
    this.users.add(created.user);
    this.addedUsersById.set(created.user.id, created.user);
    if (created.user.email) this.addedUsersByEmail.set(created.user.email, created.user);
    this.createdUsers.push(created);
  }

  addSession(s: LiveSession): void {
    this.sessions.add(s);
    this.addedSessions.set(s.id, s);
  }

  get liveSessions(): LiveSession[] {
    return [...this.addedSessions.values()];
  }
}

/**
 * The identity provider is global (D23): it knows the emails of every organization's users
 * (created ones included) and the fixture's `existingEmails`; `refuse` counts down the creation
 * attempts it refuses (502) before it accepts.
 */
export class IdentityProvider {
  private readonly existing: Set<string>;
  private readonly refuse: Map<string, number>;

  constructor(
    dataset: Dataset,
    private readonly orgs: () => Iterable<OrgState>,
  ) {
    this.existing = new Set(dataset.identityProvider.existingEmails.map(normalizeEmail));
    this.refuse = new Map(Object.entries(dataset.identityProvider.refuse));
  }

  /** The email is known to the identity provider outside `org` (409 when it would be created). */
  knowsOutside(email: string, org: OrgState): boolean {
    const e = normalizeEmail(email);
    if (this.existing.has(e)) return true;
    for (const o of this.orgs()) if (o !== org && o.findUserByEmail(e)) return true;
    return false;
  }

  /** One creation attempt: false while the fixture says to refuse it (502). */
  attemptCreate(email: string): boolean {
    const e = normalizeEmail(email);
    const left = this.refuse.get(e) ?? 0;
    if (left > 0) {
      this.refuse.set(e, left - 1);
      return false;
    }
    return true;
  }
}

/** The whole mutable state of a mock: organizations, identity provider, processing queue. */
export class MockStore {
  readonly orgs: Map<string, OrgState>;
  readonly idp: IdentityProvider;
  private pending: LiveSession[] = [];
  readonly nextId: () => string;

  constructor(
    readonly dataset: Dataset,
    seed: number,
  ) {
    this.orgs = new Map(dataset.organizations.map((o) => [o.id, new OrgState(o)]));
    this.idp = new IdentityProvider(dataset, () => this.orgs.values());
    const next = rng(hash32(seed, 0x5e55));
    this.nextId = () => randomUuid(next);
  }

  org(id: string): OrgState {
    const o = this.orgs.get(id);
    if (!o) throw new Error(`no organization ${id} in the mock's data`);
    return o;
  }

  /** A user as the rep (R3) or participant (R5) creation makes it: lowercase email (D6), no team. */
  newUser(email: string, at: number): UserExportRecord {
    return {
      id: this.nextId(),
      email: normalizeEmail(email),
      firstName: null,
      lastName: null,
      teamIds: [],
      createdAt: new Date(at).toISOString(),
    };
  }

  enqueue(s: LiveSession): void {
    this.pending.push(s);
    this.pending.sort((a, b) => doneAtMs(a) - doneAtMs(b));
  }

  /**
   * Finishes the processing of every session whose time has come (D18), in order. Called before
   * every read, so virtual time needs no timers: what processing creates (participants, D15)
   * exists as soon as anything could observe it.
   */
  advance(now: number): void {
    while (this.pending.length > 0) {
      const s = this.pending[0] as LiveSession;
      if (doneAtMs(s) > now) return;
      this.pending.shift();
      this.finish(s, doneAtMs(s));
    }
  }

  private finish(s: LiveSession, at: number): void {
    const org = this.org(s.orgId);
    const participants: string[] = [];
    if (s.facts.speakerLabeled) {
      // D15: the rep first, then every internal speaker that is or becomes a user, each once.
      participants.push(s.userId);
      for (const email of s.facts.internalSpeakers) {
        if (email === s.repEmail) continue;
        const user = org.findUserByEmail(email) ?? this.provisionParticipant(org, email, s, at);
        if (user && !participants.includes(user.id)) participants.push(user.id);
      }
    }
    s.result = {
      participantUserIds: participants,
      score: s.scorecard
        ? scoreTranscript(s.scorecard, repLines(s.facts, s.repEmail), allLines(s.facts))
        : null,
      kpis: kpisOf(s.facts, s.repEmail),
    };
  }

  /**
   * R5 / D15: an unknown internal speaker becomes a user only when automatic creation is on, its
   * domain is configured, a seat is free (D24) and the identity provider accepts; otherwise its
   * turns stay unattributed. Never rejects: the upload was answered long ago.
   */
  private provisionParticipant(
    org: OrgState,
    email: string,
    s: LiveSession,
    at: number,
  ): UserExportRecord | undefined {
    if (!org.data.settings.autoCreateUsers || !org.domainAllowed(email) || !org.hasFreeSeat()) {
      return undefined;
    }
    if (this.idp.knowsOutside(email, org) || !this.idp.attemptCreate(email)) return undefined;
    const user = this.newUser(email, at);
    org.addUser({
      user,
      reason: 'participant',
      role: 'Member',
      mustSetPassword: true,
      sessionId: s.id,
    });
    return user;
  }
}
