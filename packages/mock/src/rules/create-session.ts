import { emailDomain, normalizeEmail } from '@rcs/transcript';
import type { LiveSession } from '../lifecycle.js';
import { ProblemError } from '../problem.js';
import { chooseScorecard } from '../scoring.js';
import type { MockStore, OrgState } from '../store.js';
import { allLines, repSpeaksIn, transcriptFacts } from '../transcript-facts.js';
import type { CreateRealCallSessionRequest, UserExportRecord } from '../wire.js';

const reject = (
  status: number,
  code: ConstructorParameters<typeof ProblemError>[1],
  detail: string,
) => new ProblemError(status, code, detail);

/**
 * Session creation (rules 1–10) after the body passed validation (400). Every check runs before
 * anything is created (R9, D3), in D3's order: 422 (d), 422 user_not_found, 422 (a); then, only
 * when the rep must be created: 422 (b), 422 (c), 403, 409, 502.
 */
export function createSession(
  store: MockStore,
  org: OrgState,
  body: CreateRealCallSessionRequest,
  now: number,
  processingMs: number,
): LiveSession {
  const data = org.data;
  // 422 (d): referenced mission or scorecard does not exist in the caller's organization (D23).
  const mission = body.missionId === undefined ? undefined : data.findMission(body.missionId);
  if (body.missionId !== undefined && !mission) {
    throw reject(422, 'mission_not_found', `Mission ${body.missionId} does not exist.`);
  }
  const scorecard =
    body.scorecardId === undefined ? undefined : data.findScorecard(body.scorecardId);
  if (body.scorecardId !== undefined && !scorecard) {
    throw reject(422, 'scorecard_not_found', `Scorecard ${body.scorecardId} does not exist.`);
  }

  // D2: a userId that is no user of the caller's organization.
  let rep: UserExportRecord | undefined;
  if (body.userId !== undefined) {
    rep = org.findUserById(body.userId);
    if (!rep) {
      throw reject(
        422,
        'user_not_found',
        `User ${body.userId} is not a user of this organization.`,
      );
    }
  } else {
    // R2, D6: an existing user of the caller's organization, compared case-insensitively.
    rep = org.findUserByEmail(body.email as string);
  }
  const repEmail = rep ? (rep.email ?? null) : normalizeEmail(body.email as string);

  // R4–R6 through @rcs/transcript; 422 (a) R8 / D14: a speaker-labeled transcript without the rep.
  const facts = transcriptFacts(body.transcript, data.settings.emailDomains);
  if (!repSpeaksIn(facts, repEmail)) {
    throw reject(
      422,
      'rep_not_in_transcript',
      `The transcript is speaker-labeled but ${repEmail ?? `user ${rep?.id}`} never speaks in it.`,
    );
  }

  let newRep: UserExportRecord | undefined;
  if (!rep) {
    const email = repEmail as string;
    // R3: only when automatic creation is on and the domain is configured.
    if (!data.settings.autoCreateUsers) {
      throw reject(
        422,
        'user_creation_disabled',
        `${email} has no account and automatic user creation is disabled for this organization.`,
      );
    }
    if (!org.domainAllowed(email)) {
      throw reject(
        422,
        'email_domain_not_allowed',
        `The domain ${emailDomain(email)} is not one of the organization's email domains.`,
      );
    }
    // D24: seats are users; 403 when the count has reached the limit.
    if (!org.hasFreeSeat()) {
      throw reject(
        403,
        'seat_limit_reached',
        `The organization's seat limit (${data.settings.seatLimit}) is reached.`,
      );
    }
    // D23: the identity provider is global.
    if (store.idp.knowsOutside(email, org)) {
      throw reject(
        409,
        'email_exists_in_identity_provider',
        `${email} already exists in the identity provider but is not a member of this organization.`,
      );
    }
    if (!store.idp.attemptCreate(email)) {
      throw reject(
        502,
        'identity_provider_error',
        `The identity provider refused to create ${email}. Nothing was created; retry the upload.`,
      );
    }
    newRep = store.newUser(email, now);
  }

  // Every check passed: only now is anything created (R9).
  const repUser = (rep ?? newRep) as UserExportRecord;
  const chosen = chooseScorecard(
    data.scorecards,
    (id) => data.findScorecard(id),
    { scorecard, mission },
    allLines(facts),
  );
  const session: LiveSession = {
    live: true,
    id: store.nextId(),
    orgId: org.id,
    createdAt: new Date(now).toISOString(),
    createdAtMs: now,
    processingMs,
    userId: repUser.id,
    repEmail,
    meetingName: body.meetingName,
    // D20: the chosen scorecard's language, else en.
    language: chosen?.language ?? 'en',
    mission: mission ?? null,
    scorecard: chosen,
    facts,
  };
  if (newRep) {
    org.addUser({
      user: newRep,
      reason: 'rep',
      role: 'Member',
      mustSetPassword: true,
      sessionId: session.id,
    });
  }
  org.addSession(session);
  store.enqueue(session);
  return session;
}
