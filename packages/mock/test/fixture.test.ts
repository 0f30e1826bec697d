import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureError, generateDemoFixture, loadFixture, loadFixtureFile } from '@rcs/mock/node';
import { describe, expect, it } from 'vitest';
import { ACME_FIXTURE, startAcme } from './helpers/mock-server.js';

/** mock-fixture.md: validated on load, clear path-named messages, unknown keys refused. */

// biome-ignore lint/suspicious/noExplicitAny: the tests break the fixture on purpose, in ways its type forbids
const acme = async () => structuredClone(await loadFixtureFile(ACME_FIXTURE)) as any;

function issuesOf(json: unknown): string[] {
  try {
    loadFixture(json);
  } catch (err) {
    expect(err).toBeInstanceOf(FixtureError);
    return (err as FixtureError).issues;
  }
  throw new Error('the fixture was accepted');
}

describe('loadFixture', () => {
  it('accepts the example fixture and lowercases emails (D6)', async () => {
    const f = loadFixture(await acme());
    expect(f.organizations[0]?.users[1]?.email).toBe('manager@acme.com');
  });

  it('names the JSON path of an invalid email', async () => {
    const f = await acme();
    f.organizations[0].users[2].email = 'not-an-email';
    expect(issuesOf(f)).toContain('organizations[0].users[2].email: invalid email');
  });

  it('refuses unknown keys (typos must not pass silently)', async () => {
    const f = await acme();
    f.organizations[0].settings.autoCreateUser = true;
    expect(issuesOf(f)).toContain('organizations[0].settings: unknown key(s) autoCreateUser');
  });

  it('names a missing required field and a wrong id format', async () => {
    const f = await acme();
    delete f.organizations[0].apiKeys;
    f.organizations[0].missions[0].id = 'ABC';
    const issues = issuesOf(f);
    expect(issues).toContain('organizations[0]: missing apiKeys');
    expect(issues).toContain(
      'organizations[0].missions[0].id: invalid id (24 lowercase hex characters)',
    );
  });

  it('names every missing key of an object in one line, and where the format is described', () => {
    const root = issuesOf({});
    expect(root[0]).toBe('(root): missing organizations');
    expect(root.at(-1)).toMatch(/FIXTURE\.md of @rcs\/mock.*--write-fixture FILE/);
    const org = issuesOf({ organizations: [{ name: 'Acme' }] });
    expect(org).toHaveLength(2);
    expect(org[0]).toBe(
      'organizations[0]: missing id, apiKeys, settings, users, teams, scorecards, missions, tracks, sprints, trackAssignments, missionAssignments',
    );
  });

  it('the CLI ships the same format document as the mock', () => {
    const doc = (pkg: string, file: string) =>
      readFileSync(fileURLToPath(new URL(`../../${pkg}/${file}`, import.meta.url)), 'utf8');
    expect(doc('cli', 'MOCK-FIXTURE.md')).toBe(doc('mock', 'FIXTURE.md'));
  });

  it('checks referential integrity and names the missing id', async () => {
    const f = await acme();
    f.organizations[0].missions[0].scorecardId = 'ffffffffffffffffffffffff';
    f.organizations[0].trackAssignments[0].learnerUserId = '11111111-2222-4333-8444-555555555555';
    expect(issuesOf(f)).toEqual([
      'organizations[0].missions[0].scorecardId: scorecard ffffffffffffffffffffffff does not exist in organizations[0]',
      'organizations[0].trackAssignments[0].learnerUserId: user 11111111-2222-4333-8444-555555555555 does not exist in organizations[0]',
    ]);
  });

  it('refuses an id of another organization (D23: references stay inside one organization)', async () => {
    const f = await acme();
    f.organizations[1].users[0].teamIds = [f.organizations[0].teams[0].id];
    expect(issuesOf(f)[0]).toMatch(
      /^organizations\[1\]\.users\[0\]\.teamIds\[0\]: team .* does not exist in organizations\[1\]$/,
    );
  });

  it('refuses duplicate API keys and emails across the fixture', async () => {
    const f = await acme();
    f.organizations[1].apiKeys = ['acme-test-key-1'];
    f.organizations[1].users[0].email = 'REP@acme.com';
    expect(issuesOf(f)).toEqual([
      'organizations[1].apiKeys[0]: duplicate of organizations[0].apiKeys[0]',
      'organizations[1].users[0].email: duplicate of organizations[0].users[0].email',
    ]);
  });

  it('refuses a short jwtSecret and non-UTC timestamps', async () => {
    const f = await acme();
    f.jwtSecret = 'short';
    f.organizations[0].users[0].createdAt = '2026-01-05T09:00:00+02:00';
    const issues = issuesOf(f);
    expect(issues.some((i) => i.startsWith('jwtSecret:'))).toBe(true);
    expect(issues.some((i) => i.startsWith('organizations[0].users[0].createdAt:'))).toBe(true);
  });

  it('refuses pre-existing sessions that are not DONE', async () => {
    const f = await acme();
    f.organizations[0].realCallSessions[0].state = 'PENDING';
    expect(issuesOf(f)).toContain(
      'organizations[0].realCallSessions[0].state: pre-existing sessions must be DONE',
    );
  });

  it('accepts the demo dataset written out as a fixture', () => {
    const f = loadFixture(generateDemoFixture({ records: 200 }));
    expect(f.organizations).toHaveLength(2);
  });
});

describe('loadFixtureFile', () => {
  it('says which file cannot be read or parsed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rcs-fixture-'));
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ nope');
    await expect(loadFixtureFile(join(dir, 'missing.json'))).rejects.toThrow(
      /missing\.json: cannot read fixture file/,
    );
    await expect(loadFixtureFile(broken)).rejects.toThrow(/broken\.json: not valid JSON/);
  });
});

describe('ids compare case-insensitively', () => {
  it('a fixture session written with an uppercase id is found by its lowercase id, and the reverse', async () => {
    const f = await acme();
    const id: string = f.organizations[0].realCallSessions[0].id;
    f.organizations[0].realCallSessions[0].id = id.toUpperCase();
    const m = await startAcme({ fixture: loadFixture(f) });
    try {
      expect((await m.get(id.toLowerCase())).status).toBe(201);
      expect((await m.get(id.toUpperCase())).status).toBe(201);
    } finally {
      await m.close();
    }
  });
});
