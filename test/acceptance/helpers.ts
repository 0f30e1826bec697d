/**
 * Black-box helpers for the acceptance suite: a mock on a free port started from our own
 * fixture (written from mock-fixture.md), plain `fetch` over real HTTP, and a check of every
 * answer against openapi.yaml (status, content type, body, documented headers). Nothing here
 * uses @rcs/client: the suite judges the wire from the shared documents alone.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  loadFixture,
  type MockServer,
  type MockServerOptions,
  startMockServer,
} from '@rcs/mock/node';
import { SignJWT } from 'jose';
import { openApiValidator } from '../../packages/mock/test/helpers/openapi-validator.js';

export const FIXTURE_FILE = fileURLToPath(new URL('./fixture.json', import.meta.url));

/** The fixture's identities (see fixture.json). */
export const ACME = {
  org: 'a0000000-0000-4000-8000-000000000001',
  key: 'acc-acme-key',
  rep: { id: 'a0000000-0000-4000-8000-000000000011', email: 'rep@acme.com' },
  coach: { id: 'a0000000-0000-4000-8000-000000000012', email: 'coach@acme.com' },
  twinA: 'a0000000-0000-4000-8000-000000000013',
  twinB: 'a0000000-0000-4000-8000-000000000014',
  noEmail: 'a0000000-0000-4000-8000-000000000015',
  discovery: 'aaaaaaaaaaaaaaaaaaaa0001',
  german: 'aaaaaaaaaaaaaaaaaaaa0002',
  discoveryMission: 'aaaaaaaaaaaaaaaaaaaa0101',
  germanMission: 'aaaaaaaaaaaaaaaaaaaa0102',
  archivedTrack: 'aaaaaaaaaaaaaaaaaaaa0202',
} as const;
export const GLOBEX = {
  org: 'b0000000-0000-4000-8000-000000000001',
  key: 'acc-globex-key',
  boss: { id: 'b0000000-0000-4000-8000-000000000011', email: 'boss@globex.io' },
  moved: { id: 'b0000000-0000-4000-8000-000000000012', email: 'moved@acme.com' },
  scorecard: 'bbbbbbbbbbbbbbbbbbbb0001',
  mission: 'bbbbbbbbbbbbbbbbbbbb0101',
} as const;
/** Seat limit 1, already reached by its one user (D24). */
export const FULL = {
  key: 'acc-full-key',
  rep: { id: 'c0000000-0000-4000-8000-000000000011', email: 'rep@full.io' },
} as const;
/** Automatic creation on, no configured domains, no scorecard. */
export const OPEN = {
  key: 'acc-open-key',
  rep: { id: 'd0000000-0000-4000-8000-000000000011', email: 'rep@open.io' },
} as const;
export const JWT_SECRET = 'acceptance-secret-with-at-least-32-characters!!';

export const SESSIONS_PATH = '/api/v1/real-call-sessions';

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: every answer is checked against openapi.yaml first
  body: any;
  /** Mismatches with openapi.yaml (empty when the answer conforms). */
  contract: string[];
}

export interface Req {
  /** `null` sends no X-API-KEY; default: Acme's key. */
  key?: string | null;
  token?: string;
  body?: unknown;
  raw?: string | Uint8Array;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** A virtual clock (D18 in virtual time; the mock's `clock` option). */
function virtualClock(start = Date.parse('2026-03-02T10:00:00Z')) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const spec = openApiValidator();

export async function boot(
  options: {
    processingMs?: number;
    realTime?: boolean;
    /** Edits the raw fixture before it is loaded. */
    // biome-ignore lint/suspicious/noExplicitAny: the raw JSON is edited freely
    edit?: (raw: any) => void;
    faults?: MockServerOptions['faults'];
  } = {},
) {
  const clock = virtualClock();
  const raw = JSON.parse(readFileSync(FIXTURE_FILE, 'utf8'));
  options.edit?.(raw);
  const server: MockServer = await startMockServer({
    port: 0,
    fixture: loadFixture(raw),
    ...(options.faults ? { faults: options.faults } : {}),
    processingMs: options.processingMs ?? 4000,
    ...(options.realTime ? {} : { clock }),
  });

  const call = async (
    operationId: string,
    method: string,
    path: string,
    o: Req = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? ACME.key : o.key;
    if (key !== null) headers['x-api-key'] = key;
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body: string | Uint8Array | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && o.contentType !== null) {
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: body as BodyInit }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: the contract check reports it
    }
    const contract = spec.check(
      operationId,
      res.status,
      res.headers.get('content-type'),
      parsed,
      res.headers,
    );
    return { status: res.status, headers: res.headers, body: parsed, contract };
  };

  const create = (body: Record<string, unknown>, o: Omit<Req, 'body'> = {}) =>
    call('createRealCallSession', 'POST', SESSIONS_PATH, { ...o, body });
  const get = (id: string, o: Req = {}) =>
    call('getRealCallSession', 'GET', `${SESSIONS_PATH}/${id}`, o);
  const exp = (operationId: string, path: string, query = '', o: Req = {}) =>
    call(operationId, 'GET', `${path}${query ? `?${query}` : ''}`, o);

  /** meta.total of the users and sessions exports of the caller's organization (R9 probes). */
  const totals = async (key: string = ACME.key) => {
    const users = await exp('exportUsers', '/api/v1/data-exports/users', 'limit=100', { key });
    const sessions = await exp(
      'exportRealCallSessions',
      '/api/v1/data-exports/real-call-sessions',
      'limit=100',
      { key },
    );
    return {
      users: users.body.meta.total as number,
      sessions: sessions.body.meta.total as number,
      emails: (users.body.data as { email: string | null }[]).map((u) => u.email),
    };
  };

  return { server, url: server.url, clock, call, create, get, exp, totals, close: server.close };
}
export type Booted = Awaited<ReturnType<typeof boot>>;

/** One cue of a speaker-labeled SRT. */
export interface Turn {
  /** The text before `: `; `null` for an unlabeled cue. */
  who: string | null;
  text: string;
  start: number;
  end: number;
}

const stamp = (s: number) => {
  const ms = Math.round(s * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const sec = Math.floor(ms / 1000) % 60;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(h)}:${p(m)}:${p(sec)},${p(ms % 1000, 3)}`;
};

/** SRT text from explicit turns. */
export function srt(turns: Turn[]): string {
  return turns
    .map(
      (t, i) =>
        `${i + 1}\n${stamp(t.start)} --> ${stamp(t.end)}\n${t.who === null ? '' : `${t.who}: `}${t.text}\n`,
    )
    .join('\n');
}

/** SRT from `[who, text]` pairs, 4 s per cue, 1 s apart. */
export function labeled(turns: [string | null, string][]): string {
  return srt(turns.map(([who, text], i) => ({ who, text, start: i * 5, end: i * 5 + 4 })));
}

export const PLAIN = 'We talked about the budget and the timeline for the roll-out next quarter.';

/** A valid HS256 token for `org` signed with the fixture's secret (D22). */
export async function jwt(
  org: string,
  o: { secret?: string; exp?: number; alg?: 'HS256' | 'HS512' } = {},
): Promise<string> {
  let b = new SignJWT({ org }).setProtectedHeader({ alg: o.alg ?? 'HS256' }).setIssuedAt();
  if (o.exp !== undefined) b = b.setExpirationTime(o.exp);
  return b.sign(new TextEncoder().encode(o.secret ?? JWT_SECRET));
}

/** An unsigned token (`alg: none`). */
export function unsignedJwt(org: string): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ org })}.`;
}

export const EXPORTS = [
  ['exportRealCallSessions', 'real-call-sessions'],
  ['exportTrackAssignments', 'track-assignments'],
  ['exportMissionAssignments', 'mission-assignments'],
  ['exportSprints', 'sprints'],
  ['exportUsers', 'users'],
  ['exportTracks', 'tracks'],
  ['exportScorecards', 'scorecards'],
  ['exportMissions', 'missions'],
  ['exportTeams', 'teams'],
] as const;
