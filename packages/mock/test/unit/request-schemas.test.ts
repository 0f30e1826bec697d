import { describe, expect, expectTypeOf, it } from 'vitest';
import { ProblemError } from '../../src/problem.js';
import {
  type PageQuery,
  parseArchived,
  parseCreateBody,
  parsePageQuery,
} from '../../src/request-schemas.js';
import type { CreateRealCallSessionRequest, operations } from '../../src/wire.js';

// Compile-time: what the mock accepts is the contract's (openapi.yaml, generated into wire.ts),
// both ways, so a change of openapi.yaml not made in request-schemas.ts fails `npm run typecheck`.
describe("the request shapes are the contract's (types)", () => {
  it('createRealCallSession body', () => {
    type Parsed = ReturnType<typeof parseCreateBody>;
    expectTypeOf<Parsed>().toExtend<CreateRealCallSessionRequest>();
    expectTypeOf<CreateRealCallSessionRequest>().toExtend<Parsed>();
  });

  it("the exports' query (page, limit; the tracks export's archived)", () => {
    type TracksQuery = NonNullable<operations['exportTracks']['parameters']['query']>;
    expectTypeOf<Required<Omit<TracksQuery, 'archived'>>>().toExtend<PageQuery>();
    expectTypeOf<PageQuery>().toExtend<Required<Omit<TracksQuery, 'archived'>>>();
    type Archived = NonNullable<TracksQuery['archived']>;
    expectTypeOf<ReturnType<typeof parseArchived>>().toExtend<Archived>();
    expectTypeOf<Archived>().toExtend<ReturnType<typeof parseArchived>>();
  });
});

/** D1's 400 body as a client reads it: which fields, and what is wrong with each. */
function errorsOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError);
    const p = error as ProblemError;
    expect([p.status, p.code]).toEqual([400, 'validation_failed']);
    return p.errors;
  }
  throw new Error('expected a 400');
}

const T = 'We talked about the budget and the next step.';
const UUID = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

describe('parseCreateBody (D1, D2, D5, D17)', () => {
  it.each([[[]], [null], ['text'], [42]])('%o is not a JSON object', (body) => {
    expect(errorsOf(() => parseCreateBody(body))).toEqual([
      { path: '', message: 'the body must be a JSON object' },
    ]);
  });

  it('each unknown field is named (D2)', () => {
    expect(
      errorsOf(() =>
        parseCreateBody({ transcript: T, meetingName: 'm', email: 'a@b.co', extra: 1, other: 2 }),
      ),
    ).toEqual([
      { path: '/extra', message: 'unknown field' },
      { path: '/other', message: 'unknown field' },
    ]);
  });

  it('transcript length in code points, both bounds inclusive (D17)', () => {
    const body = (transcript: string) => ({ transcript, meetingName: 'm', email: 'a@b.co' });
    expect(parseCreateBody(body('x'.repeat(10))).transcript).toHaveLength(10);
    expect(parseCreateBody(body('x'.repeat(100_000))).transcript).toHaveLength(100_000);
    expect(errorsOf(() => parseCreateBody(body('x'.repeat(9))))).toEqual([
      { path: '/transcript', message: 'must be at least 10 characters (has 9)' },
    ]);
    expect(errorsOf(() => parseCreateBody(body('x'.repeat(100_001))))).toEqual([
      { path: '/transcript', message: 'must be at most 100000 characters (has 100001)' },
    ]);
    // Five astral characters are ten UTF-16 units but five code points: too short.
    expect(errorsOf(() => parseCreateBody(body('🚀'.repeat(5))))).toEqual([
      { path: '/transcript', message: 'must be at least 10 characters (has 5)' },
    ]);
  });

  it('a wrong type, an empty name and a bad e-mail, each on its own path', () => {
    expect(
      errorsOf(() => parseCreateBody({ transcript: 7, meetingName: '', email: 'nope' })),
    ).toEqual([
      { path: '/transcript', message: 'expected string, received number' },
      { path: '/meetingName', message: 'must be at least 1 character' },
      { path: '/email', message: 'must match the e-mail pattern' },
    ]);
  });

  it('patterned ids say what they must be', () => {
    expect(
      errorsOf(() =>
        parseCreateBody({
          transcript: T,
          meetingName: 'm',
          userId: 'nope',
          missionId: 'x',
          scorecardId: 'y',
        }),
      ),
    ).toEqual([
      { path: '/userId', message: 'must be a UUID (hex digits in groups 8-4-4-4-12)' },
      { path: '/missionId', message: 'must be 24 lowercase hexadecimal characters' },
      { path: '/scorecardId', message: 'must be 24 lowercase hexadecimal characters' },
    ]);
  });

  it('exactly one of userId or email designates the rep (D5)', () => {
    expect(errorsOf(() => parseCreateBody({ transcript: T, meetingName: 'm' }))).toEqual([
      { path: '', message: 'Send one of userId or email to designate the rep.' },
    ]);
    expect(
      errorsOf(() =>
        parseCreateBody({ transcript: T, meetingName: 'm', email: 'a@b.co', userId: UUID }),
      ),
    ).toEqual([
      {
        path: '',
        message: 'Send exactly one of userId or email to designate the rep, not both.',
      },
    ]);
    expect(parseCreateBody({ transcript: T, meetingName: 'm', userId: UUID })).toEqual({
      transcript: T,
      meetingName: 'm',
      userId: UUID,
    });
  });
});

describe('parsePageQuery (D7)', () => {
  const q = (s: string) => parsePageQuery(new URLSearchParams(s));
  it('defaults and the largest page size', () => {
    expect(q('')).toEqual({ page: 1, limit: 20 });
    expect(q('page=2&limit=100')).toEqual({ page: 2, limit: 100 });
    expect(q('limit=1')).toEqual({ page: 1, limit: 1 });
  });
  it.each([
    ['page=0', '/query/page', 'must be at least 1'],
    ['page=1&page=2', '/query/page', 'must be given once'],
    ['limit=101', '/query/limit', 'must be 1 to 100'],
    ['limit=0', '/query/limit', 'must be 1 to 100'],
    ['limit=abc', '/query/limit', 'must be an integer (got "abc")'],
    ['page=-1', '/query/page', 'must be an integer (got "-1")'],
  ])('%s', (query, path, message) => {
    expect(errorsOf(() => q(query))).toEqual([{ path, message }]);
  });
  it('both parameters wrong: both named', () => {
    expect(errorsOf(() => q('page=0&limit=500'))).toEqual([
      { path: '/query/page', message: 'must be at least 1' },
      { path: '/query/limit', message: 'must be 1 to 100' },
    ]);
  });
});

describe('parseArchived (D8)', () => {
  const a = (s: string) => parseArchived(new URLSearchParams(s));
  it('include by default, or only', () => {
    expect(a('')).toBe('include');
    expect(a('archived=only')).toBe('only');
    expect(a('archived=include')).toBe('include');
  });
  it.each(['archived=nope', 'archived=include&archived=only', 'archived='])('%s', (query) => {
    expect(errorsOf(() => a(query))).toEqual([
      { path: '/query/archived', message: 'must be "include" or "only", given once' },
    ]);
  });
});
