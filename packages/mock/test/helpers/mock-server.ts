import { fileURLToPath } from 'node:url';
import {
  type Fixture,
  loadFixtureFile,
  type MockServer,
  type MockServerOptions,
  startMockServer,
} from '@rcs/mock/node';
import { openApiValidator } from './openapi-validator.js';

export const ACME_FIXTURE = fileURLToPath(new URL('../../fixtures/acme.json', import.meta.url));
export const ACME = {
  org: '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01',
  key: 'acme-test-key-1',
  rep: { id: '3f1c2b7e-8a4d-4c1e-9b2a-5d6e7f809a01', email: 'rep@acme.com' },
  manager: { id: '3f1c2b7e-8a4d-4c1e-9b2a-5d6e7f809a02', email: 'manager@acme.com' },
  noEmailUserId: '3f1c2b7e-8a4d-4c1e-9b2a-5d6e7f809a03',
  scorecard: '64b7f0c2a1b2c3d4e5f60718',
  germanScorecard: '64b7f0c2a1b2c3d4e5f60728',
  mission: '64b7f0c2a1b2c3d4e5f60719',
  germanMission: '64b7f0c2a1b2c3d4e5f60729',
  session: '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4',
  secret: 'acme-mock-secret-at-least-32-characters-long',
} as const;
export const GLOBEX = {
  org: '7c2e4f1a-5b6d-4e8f-9a0b-1c2d3e4f5a01',
  key: 'globex-test-key-1',
  boss: { id: '7c2e4f1a-5b6d-4e8f-9a0b-1c2d3e4f5a10', email: 'boss@globex.io' },
} as const;

/** A clock the test moves by hand (D18 in virtual time). */
export function virtualClock(start = Date.parse('2026-03-02T10:15:00Z')) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked against openapi.yaml, then read freely
  body: any;
}

export interface CallOptions {
  key?: string | null;
  token?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding), e.g. malformed JSON or non-UTF-8 bytes. */
  raw?: string | Uint8Array;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** A mock on a free port with the Acme fixture, a virtual clock and an openapi.yaml check of every answer. */
export async function startAcme(options: Partial<MockServerOptions> & { fixture?: Fixture } = {}) {
  const clock = virtualClock();
  const fixture = options.fixture ?? (await loadFixtureFile(ACME_FIXTURE));
  const server: MockServer = await startMockServer({
    processingMs: 4000,
    clock,
    ...options,
    fixture,
    port: 0,
  });
  const spec = openApiValidator();

  /** One request; the answer is validated against openapi.yaml for `operationId`. */
  const call = async (
    operationId: string,
    method: string,
    path: string,
    o: CallOptions = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? ACME.key : o.key;
    if (key !== null) headers['x-api-key'] = key;
    if (o.token) headers.authorization = `Bearer ${o.token}`;
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
    const status = res.status;
    const resHeaders = res.headers;
    const parsed = await spec.expectResponse(operationId, res);
    return { status, headers: resHeaders, body: parsed };
  };

  const create = (body: Record<string, unknown>, o: Omit<CallOptions, 'body'> = {}) =>
    call('createRealCallSession', 'POST', '/api/v1/real-call-sessions', { ...o, body });
  const get = (id: string, o: CallOptions = {}) =>
    call('getRealCallSession', 'GET', `/api/v1/real-call-sessions/${id}`, o);
  const exportPage = (operationId: string, path: string, query = '', o: CallOptions = {}) =>
    call(operationId, 'GET', `${path}${query ? `?${query}` : ''}`, o);

  return {
    server,
    clock,
    call,
    create,
    get,
    exportPage,
    state: server.api.state,
    close: () => server.close(),
  };
}

export type Acme = Awaited<ReturnType<typeof startAcme>>;

/** A speaker-labeled SRT from `[speaker, text]` turns, 4 s per cue with 1 s gaps. */
export function labeledSrt(turns: [string, string][]): string {
  return turns
    .map(([who, text], i) => {
      const start = i * 5;
      const t = (s: number) => `00:00:${String(s).padStart(2, '0')},000`;
      return `${i + 1}\n${t(start)} --> ${t(start + 4)}\n${who}: ${text}\n`;
    })
    .join('\n');
}
