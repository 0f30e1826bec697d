import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Fixture, loadFixtureFile, type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_FIXTURE, assertBuilt, labeledCall, readLedger, runCli, tempDir } from './helpers.js';

// Every status the description (and D2/D3) gives the create operation, through the built CLI
// over real HTTP: the documented exit code and one clear line that says what to do.

const ACME_KEY = 'acme-test-key-1';
const GLOBEX_KEY = 'globex-test-key-1';
const REP = 'rep@acme.com';
const ACME_ORG = '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01';
const JWT_SECRET = 'acme-mock-secret-at-least-32-characters-long';

let server: MockServer;
let dir: string;
let n = 0;

function file(text: string): string {
  const path = join(dir, `call-${++n}.srt`);
  writeFileSync(path, text);
  return path;
}

function upload(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['upload', ...args], {
    cwd: dir,
    env: { RCS_BASE_URL: server.url, RCS_API_KEY: ACME_KEY, ...env },
  });
}

/** Exactly one stderr line, and nothing on stdout: what scripts see on a failure. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

beforeAll(async () => {
  assertBuilt();
  const fixture = structuredClone(await loadFixtureFile(ACME_FIXTURE)) as Fixture;
  const acme = fixture.organizations[0]!;
  // One free seat (3 users, limit 4): the 409 and 502 cases need a seat, the 403 case uses it up.
  acme.settings.seatLimit = 4;
  fixture.identityProvider = {
    existingEmails: ['taken@acme.com'],
    refuse: { 'flaky@acme.com': 10 },
  };
  server = await startMockServer({ port: 0, fixture, processingMs: 100 });
  dir = tempDir();
});

afterAll(async () => {
  await server?.close();
});

describe('rcs upload: every create status → exit code + one actionable line', () => {
  it('201: prints the session id on stdout, exit 0, and records it in the ledger', async () => {
    const r = await upload([file(labeledCall(REP, 1)), '--email', REP]);
    expect(r.code).toBe(0);
    const [status, , id] = r.stdout.trim().split(/\s+/);
    expect(status).toBe('created');
    expect(server.api.state.org(ACME_ORG).session(id!)).toBeDefined();
    const ledger = readLedger(join(dir, '.rcs-ledger.jsonl'));
    expect(ledger.at(-1)).toMatchObject({ status: 'created', sessionId: id, rep: `email:${REP}` });
  });

  it('400: a transcript the service rejects as invalid (pre-validation skipped)', async () => {
    const r = await upload([file('too short'), '--email', REP, '--no-validate']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/rejected the request as invalid \(400\)/);
  });

  it('401: exit 4, and neither the key nor any part of it is printed, even with --verbose', async () => {
    const key = 'sk-live-SECRET-0123456789';
    const r = await upload([file(labeledCall(REP, 2)), '--email', REP, '--verbose'], {
      RCS_API_KEY: key,
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/credentials were refused \(401\).*RCS_API_KEY/);
    expect(`${r.stdout}${r.stderr}`).not.toContain('SECRET');
    expect(r.stderr).toMatch(/POST .*real-call-sessions -> 401/); // --verbose logged the request
  });

  it('a bearer token from --token-file works; an expired one is exit 4 and never printed', async () => {
    const { SignJWT } = await import('jose');
    const secret = new TextEncoder().encode(JWT_SECRET);
    const now = Math.floor(Date.now() / 1000);
    const valid = await new SignJWT({ org: ACME_ORG })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(now + 600)
      .sign(secret);
    const expired = await new SignJWT({ org: ACME_ORG })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(now - 600)
      .sign(secret);
    writeFileSync(join(dir, 'token.txt'), `${valid}\n`);
    writeFileSync(join(dir, 'expired.txt'), expired);
    const ok = await upload(
      [file(labeledCall(REP, 20)), '--email', REP, '--token-file', 'token.txt'],
      { RCS_API_KEY: undefined },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await upload(
      [file(labeledCall(REP, 21)), '--email', REP, '--token-file', 'expired.txt', '--verbose'],
      { RCS_API_KEY: undefined },
    );
    expect(bad.code).toBe(4);
    expect(`${bad.stdout}${bad.stderr}`).not.toContain(expired.split('.')[2]!);
    const missing = await upload([
      file(labeledCall(REP, 22)),
      '--email',
      REP,
      '--token-file',
      'nope.txt',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--token-file: cannot read nope\.txt \(ENOENT\)/);
  });

  it('no credentials at all: exit 4 before any request', async () => {
    const r = await upload([file(labeledCall(REP, 3)), '--email', REP], { RCS_API_KEY: undefined });
    expect(r.code).toBe(4);
    expect(oneLine(r.stderr)).toMatch(/no credentials: set RCS_API_KEY/);
  });

  it('409: the email exists in the identity provider outside the organization', async () => {
    const r = await upload([file(labeledCall('taken@acme.com', 4)), '--email', 'taken@acme.com']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/another organization.*\(409\)/);
  });

  it('502: the identity provider refused; says nothing was created and to retry', async () => {
    const r = await upload([file(labeledCall('flaky@acme.com', 5)), '--email', 'flaky@acme.com']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/identity provider refused.*\(502\).*again later/);
  });

  it('403: the seat limit is reached', async () => {
    const first = await upload([file(labeledCall('new1@acme.com', 6)), '--email', 'new1@acme.com']);
    expect(first.code).toBe(0); // took the last seat
    const r = await upload([file(labeledCall('new2@acme.com', 7)), '--email', 'new2@acme.com']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/seat limit is reached \(403/);
  });

  it.each([
    [
      'user_creation_disabled',
      ['--email', 'nobody@globex.io'],
      GLOBEX_KEY,
      /automatic user creation is off/,
    ],
    [
      'email_domain_not_allowed',
      ['--email', 'rep@elsewhere.example'],
      ACME_KEY,
      /domain is not one of/,
    ],
    [
      'mission_not_found',
      ['--email', REP, '--mission-id', 'ffffffffffffffffffffffff'],
      ACME_KEY,
      /no mission with that --mission-id/,
    ],
    [
      'scorecard_not_found',
      ['--email', REP, '--scorecard-id', 'ffffffffffffffffffffffff'],
      ACME_KEY,
      /no scorecard with that --scorecard-id/,
    ],
    [
      'user_not_found',
      ['--user-id', '11111111-2222-4333-8444-555555555555'],
      ACME_KEY,
      /no user with that --user-id/,
    ],
  ] as const)('422 %s', async (_code, args, key, message) => {
    const rep = args[0] === '--email' ? args[1] : REP;
    const r = await upload([file(labeledCall(rep, 100 + n)), ...args, '--no-validate'], {
      RCS_API_KEY: key,
    });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(message);
    expect(r.stderr).toMatch(/422/);
  });

  it('422 rep_not_in_transcript from the service when pre-validation is skipped', async () => {
    const r = await upload([
      file(labeledCall('someone@acme.com', 8)),
      '--email',
      REP,
      '--no-validate',
    ]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(
      /rep never speaks in it \(422\): a speaker-labeled transcript must have the rep speak/,
    );
  });

  it('the same rule 8 failure is caught offline by default: exit 2, no request', async () => {
    const before = server.api.state.counts().createdSessions;
    const path = file(labeledCall('someone@acme.com', 9));
    const r = await upload([path, '--email', REP]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/never speaks in it/);
    expect(r.stderr).toMatch(/nothing was uploaded/);
    expect(server.api.state.counts().createdSessions).toBe(before);
  });

  it('pre-validation names the line: a timing line that is broken', async () => {
    const text = `${labeledCall(REP, 10)}\n4\n00:00:20,000 --> 00:00:1x,000\n${REP}: hi\n`;
    const r = await upload([file(text), '--email', REP]);
    // Either the parser rejects the cue (exit 2 with a line) or it is plain text around it; it
    // must never reach the service with an error the user could have seen offline.
    if (r.code === 2) expect(r.stderr).toMatch(/call-\d+\.srt:\d+: /);
    else expect(r.code).toBe(0);
  });

  it('413: a body over 1 MiB (pre-validation skipped)', async () => {
    const big = `${REP}: ${'budget '.repeat(160_000)}`;
    const r = await upload([file(big), '--email', REP, '--no-validate']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/over 1 MiB \(413\)/);
  });

  it('usage errors: exit 2 with a line naming the flag, before any request', async () => {
    const a = await upload([file(labeledCall(REP, 11))]);
    expect(a.code).toBe(2);
    expect(oneLine(a.stderr)).toMatch(/--email EMAIL or --user-id UUID/);
    const b = await upload([file(labeledCall(REP, 12)), '--email', REP, '--concurrency', '0']);
    expect(b.code).toBe(2);
    expect(oneLine(b.stderr)).toMatch(/--concurrency must be a whole number/);
    const c = await upload(['does-not-exist.srt', '--email', REP]);
    expect(c.code).toBe(2);
    expect(oneLine(c.stderr)).toMatch(/no such file or directory: does-not-exist.srt/);
    const d = await upload([file(labeledCall(REP, 13)), '--email', REP, '--bogus']);
    expect(d.code).toBe(2);
    expect(oneLine(d.stderr)).toMatch(/unknown option '--bogus'/);
  });
});
