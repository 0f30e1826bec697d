/**
 * mock-fixture.md: a bad fixture is refused with a message naming the JSON path; unknown keys
 * are errors; references must exist in the same organization; optional parts behave as
 * documented (jwtSecret, seatLimit, realCallSessions, identityProvider.refuse); the demo dataset
 * is reproducible from its seed.
 */
import { readFileSync } from 'node:fs';
import { loadFixture, startMockServer } from '@rcs/mock/node';
import { describe, expect, it } from 'vitest';
import { openApiValidator } from '../../packages/mock/test/helpers/openapi-validator.js';
import { ACME, FIXTURE_FILE, jwt, PLAIN } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited freely to break them
type Json = any;
const raw = (): Json => JSON.parse(readFileSync(FIXTURE_FILE, 'utf8'));
const spec = openApiValidator();

/** The loader's message for a broken fixture (it must refuse it). */
function refusal(mutate: (f: Json) => void): string {
  const f = raw();
  mutate(f);
  try {
    loadFixture(f);
  } catch (e) {
    return String((e as Error).message);
  }
  throw new Error('the fixture was accepted');
}

describe('fixture validation names the JSON path (mock-fixture.md)', () => {
  const cases: [string, (f: Json) => void, RegExp][] = [
    [
      'an invalid user email',
      (f) => {
        f.organizations[0].users[2].email = 'not-an-email';
      },
      /organizations\[0\]\.users\[2\]\.email/,
    ],
    [
      'an unknown key (typo)',
      (f) => {
        f.organizations[0].settings.autoCreateUser = true;
      },
      /organizations\[0\]\.settings.*autoCreateUser/,
    ],
    [
      'an unknown top-level key',
      (f) => {
        f.organisations = [];
      },
      /organisations/,
    ],
    [
      'a duplicate API key across organizations',
      (f) => {
        f.organizations[1].apiKeys = [f.organizations[0].apiKeys[0]];
      },
      /organizations\[1\]\.apiKeys\[0\]/,
    ],
    [
      'an email used in two organizations',
      (f) => {
        f.organizations[1].users[0].email = 'rep@acme.com';
      },
      /organizations\[1\]\.users\[0\]\.email/,
    ],
    [
      "a mission's scorecard that does not exist",
      (f) => {
        f.organizations[0].missions[0].scorecardId = 'ffffffffffffffffffffffff';
      },
      /organizations\[0\]\.missions\[0\]\.scorecardId.*ffffffffffffffffffffffff/,
    ],
    [
      "a mission's scorecard of another organization",
      (f) => {
        f.organizations[0].missions[0].scorecardId = 'bbbbbbbbbbbbbbbbbbbb0001';
      },
      /organizations\[0\]\.missions\[0\]\.scorecardId/,
    ],
    [
      "a user's team that does not exist",
      (f) => {
        f.organizations[0].users[0].teamIds = ['a0000000-0000-4000-8000-00000000ffff'];
      },
      /organizations\[0\]\.users\[0\]\.teamIds\[0\]/,
    ],
    [
      "a track's mission that does not exist",
      (f) => {
        f.organizations[0].tracks[0].missionIds = ['ffffffffffffffffffffffff'];
      },
      /organizations\[0\]\.tracks\[0\]\.missionIds\[0\]/,
    ],
    [
      "an assignment's user that does not exist",
      (f) => {
        f.organizations[0].trackAssignments[0].learnerUserId =
          'a0000000-0000-4000-8000-00000000ffff';
      },
      /organizations\[0\]\.trackAssignments\[0\]\.learnerUserId/,
    ],
    [
      'a mission id that is not 24 lowercase hex',
      (f) => {
        f.organizations[0].missions[1].id = 'AAAAAAAAAAAAAAAAAAAA0102';
      },
      /organizations\[0\]\.missions\[1\]\.id/,
    ],
    [
      'a user id that is not a UUID',
      (f) => {
        f.organizations[0].users[1].id = 'user-1';
      },
      /organizations\[0\]\.users\[1\]\.id/,
    ],
    [
      'a timestamp without Z',
      (f) => {
        f.organizations[0].users[0].createdAt = '2026-01-05T09:00:00+01:00';
      },
      /organizations\[0\]\.users\[0\]\.createdAt/,
    ],
    [
      "a sprint's team that does not exist",
      (f) => {
        f.organizations[0].sprints[0].assignedTeamId = 'a0000000-0000-4000-8000-00000000ffff';
      },
      /organizations\[0\]\.sprints\[0\]\.assignedTeamId/,
    ],
    [
      "a mission assignment's mission that does not exist",
      (f) => {
        f.organizations[0].missionAssignments[0].missionId = 'ffffffffffffffffffffffff';
      },
      /organizations\[0\]\.missionAssignments\[0\]\.missionId/,
    ],
    [
      "a track assignment's completed mission that does not exist",
      (f) => {
        f.organizations[0].trackAssignments[0].completedMissionIds = ['ffffffffffffffffffffffff'];
      },
      /organizations\[0\]\.trackAssignments\[0\]\.completedMissionIds\[0\]/,
    ],
    [
      'an organization id that is not a UUID',
      (f) => {
        f.organizations[0].id = 'acme';
      },
      /organizations\[0\]\.id/,
    ],
    [
      'an unknown key in a user',
      (f) => {
        f.organizations[0].users[0].role = 'admin';
      },
      /organizations\[0\]\.users\[0\].*role/,
    ],
    [
      'a language outside the enum',
      (f) => {
        f.organizations[0].scorecards[0].language = 'english';
      },
      /organizations\[0\]\.scorecards\[0\]\.language/,
    ],
    [
      'a missing required field',
      (f) => {
        delete f.organizations[0].teams;
      },
      /organizations\[0\]: missing (\w+, )*teams/,
    ],
  ];
  it.each(cases)('%s', (_name, mutate, path) => {
    expect(refusal(mutate)).toMatch(path);
  });
});

describe('optional parts of the fixture', () => {
  it('without jwtSecret, bearer tokens are refused (401)', async () => {
    const f = raw();
    delete f.jwtSecret;
    const server = await startMockServer({ port: 0, fixture: loadFixture(f), processingMs: 0 });
    try {
      const res = await fetch(`${server.url}/api/v1/data-exports/teams`, {
        headers: { authorization: `Bearer ${await jwt(ACME.org)}` },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  it('realCallSessions: pre-existing DONE sessions are read by id and exported (D10 mapping)', async () => {
    const f = raw();
    const session = {
      id: '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4',
      createdAt: '2026-02-01T10:00:00Z',
      lastUpdatedAt: '2026-02-01T10:05:00Z',
      userId: ACME.rep.id,
      call: {
        id: 'call-1',
        createdAt: '2026-02-01T10:00:00Z',
        lastUpdatedAt: '2026-02-01T10:05:00Z',
        assistantReferenceId: 'real-call',
        state: 'DONE',
        endedReason: null,
        providerCallId: null,
        summary: null,
        transcript: 'rep@acme.com: what is the budget?',
      },
      analysis: {
        id: 'an-1',
        createdAt: '2026-02-01T10:00:00Z',
        lastUpdatedAt: '2026-02-01T10:05:00Z',
        state: 'DONE',
        score: 40,
        items: [
          {
            id: 'it-1',
            createdAt: '2026-02-01T10:00:00Z',
            lastUpdatedAt: '2026-02-01T10:05:00Z',
            state: 'DONE',
            score: 80,
            name: 'Budget',
            explanation: null,
            suggestion: null,
            conversationItemReferenceId: null,
            solved: 'solved',
            behaviours: [],
          },
          {
            id: 'it-2',
            createdAt: '2026-02-01T10:00:00Z',
            lastUpdatedAt: '2026-02-01T10:05:00Z',
            state: 'DONE',
            score: 0,
            name: 'Timeline',
            explanation: null,
            suggestion: null,
            conversationItemReferenceId: null,
            solved: null,
            behaviours: [],
          },
        ],
      },
      kpis: {
        id: 'k-1',
        createdAt: '2026-02-01T10:00:00Z',
        lastUpdatedAt: '2026-02-01T10:05:00Z',
        state: 'DONE',
        listenRatio: 0.5,
        longestMonologue: 3,
        talkSpeed: 120,
      },
      language: 'en',
      state: 'DONE',
      completed: false,
      type: 'REAL_CALL',
      missionReferenceId: ACME.discoveryMission,
      participantUserIds: [ACME.rep.id],
    };
    f.organizations[0].realCallSessions = [session];
    const server = await startMockServer({ port: 0, fixture: loadFixture(f), processingMs: 0 });
    try {
      const headers = { 'x-api-key': ACME.key };
      const g = await fetch(`${server.url}/api/v1/real-call-sessions/${session.id}`, { headers });
      expect(g.status).toBe(201);
      const body = await spec.expectResponse('getRealCallSession', g);
      expect(body).toMatchObject({ id: session.id, state: 'DONE', userId: ACME.rep.id });
      const e = await fetch(`${server.url}/api/v1/data-exports/real-call-sessions`, { headers });
      const page = (await spec.expectResponse('exportRealCallSessions', e)) as Json;
      expect(page.meta.total).toBe(1);
      const rec = page.data[0];
      expect(rec).toMatchObject({
        id: session.id,
        learnerUserId: ACME.rep.id,
        transcript: session.call.transcript,
        language: 'en',
        completed: false,
        missionId: ACME.discoveryMission,
        participantUserIds: [ACME.rep.id],
      });
      expect(rec.analysis).toEqual({
        score: 40,
        items: [
          { name: 'Budget', solved: 'solved', explanation: null, suggestion: null, itemScore: 80 },
          {
            name: 'Timeline',
            solved: 'notSolved',
            explanation: null,
            suggestion: null,
            itemScore: 0,
          },
        ],
      });
    } finally {
      await server.close();
    }
  });

  it('identityProvider.refuse counts refusals: 2 refusals give two 502s, then 201', async () => {
    const f = raw();
    f.identityProvider.refuse = { 'twice@acme.com': 2 };
    const server = await startMockServer({ port: 0, fixture: loadFixture(f), processingMs: 0 });
    try {
      const post = () =>
        fetch(`${server.url}/api/v1/real-call-sessions`, {
          method: 'POST',
          headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' },
          body: JSON.stringify({ transcript: PLAIN, meetingName: 'x', email: 'twice@acme.com' }),
        });
      expect((await post()).status).toBe(502);
      expect((await post()).status).toBe(502);
      expect((await post()).status).toBe(201);
    } finally {
      await server.close();
    }
  });

  it('no seatLimit means unlimited (D24)', async () => {
    const f = raw();
    delete f.organizations[0].settings.seatLimit;
    const server = await startMockServer({ port: 0, fixture: loadFixture(f), processingMs: 0 });
    try {
      for (let i = 0; i < 7; i++) {
        const res = await fetch(`${server.url}/api/v1/real-call-sessions`, {
          method: 'POST',
          headers: { 'x-api-key': ACME.key, 'content-type': 'application/json' },
          body: JSON.stringify({ transcript: PLAIN, meetingName: 'x', email: `n${i}@acme.com` }),
        });
        expect(res.status).toBe(201);
      }
    } finally {
      await server.close();
    }
  });
});

describe('identityProvider.existingEmails are outside every organization (mock-fixture.md)', () => {
  // The format defines the field as emails "outside every organization of the fixture"; a
  // contradictory fixture is refused naming identityProvider.existingEmails[0].
  it('a member email listed in existingEmails is refused with its path', () => {
    expect(
      refusal((f) => {
        f.identityProvider.existingEmails = ['rep@acme.com'];
      }),
    ).toMatch(/identityProvider\.existingEmails\[0\]/);
  });
});
