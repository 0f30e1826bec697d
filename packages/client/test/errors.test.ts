import {
  ApiError,
  type ApiErrorCode,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  createRcsClient,
  IdentityProviderConflictError,
  IdentityProviderError,
  NotFoundError,
  PayloadTooLargeError,
  type ProblemCode,
  RateLimitError,
  RcsError,
  SeatLimitError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  type UnprocessableReason,
  WaitTimeoutError,
} from '@rcs/client';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { API_KEY, BASE, problem, SESSION_ID, TOKEN } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CREATE_URL = `${BASE}/api/v1/real-call-sessions`;
const body = { transcript: 'Hello there, this is a call.', meetingName: 'Call', email: 'r@a.io' };
// No retries here: these tests are about what one answer becomes.
const client = () => createRcsClient({ baseUrl: BASE, apiKey: API_KEY, maxRetries: 0 });

function answer(status: number, payload: unknown, headers: Record<string, string> = {}) {
  server.use(
    http.post(CREATE_URL, () =>
      typeof payload === 'string'
        ? new HttpResponse(payload, { status, headers })
        : HttpResponse.json(payload as Record<string, unknown>, {
            status,
            headers: { 'content-type': 'application/problem+json', ...headers },
          }),
    ),
  );
}

async function failure(): Promise<ApiError> {
  try {
    await client().sessions.create(body);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected the create to fail');
}

describe('one error class per failure (D1, D2, D3)', () => {
  it.each([
    [400, 'validation_failed', BadRequestError],
    [401, 'unauthorized', AuthenticationError],
    [403, 'seat_limit_reached', SeatLimitError],
    [404, 'not_found', NotFoundError],
    [409, 'email_exists_in_identity_provider', IdentityProviderConflictError],
    [413, 'payload_too_large', PayloadTooLargeError],
    [422, 'user_creation_disabled', UnprocessableError],
    [429, 'rate_limited', RateLimitError],
    [502, 'identity_provider_error', IdentityProviderError],
    [500, 'internal', ServerError],
    [504, 'gateway_timeout', ServerError],
  ] as const)('%i %s → %o', async (status, code, Cls) => {
    answer(status, problem(status, code, 'Title here', `Detail for ${code}`), {
      'x-request-id': 'req-42',
    });
    const error = await failure();
    expect(error).toBeInstanceOf(Cls);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(RcsError);
    expect(error).toMatchObject({
      status,
      code,
      title: 'Title here',
      detail: `Detail for ${code}`,
      requestId: 'req-42',
    });
    expect(error.message).toContain(String(status));
    expect(error.message).toContain(`Detail for ${code}`);
    expect(error.message).toContain(code);
    expect(error.message).toContain('req-42');
  });

  it.each([
    [403, 'forbidden_by_policy', SeatLimitError],
    [409, 'version_conflict', IdentityProviderConflictError],
  ] as const)(
    'a %i with another code (%s) is a plain ApiError, not %o',
    async (status, code, Cls) => {
      answer(status, problem(status, code, 'Title here', 'something else'));
      const error = await failure();
      expect(error).toBeInstanceOf(ApiError);
      expect(error).not.toBeInstanceOf(Cls);
      expect(error.name).toBe('ApiError');
      expect(error).toMatchObject({ status, code });
    },
  );

  it.each([
    [403, SeatLimitError],
    [409, IdentityProviderConflictError],
  ] as const)(
    'a %i without any code keeps its D3 class (read leniently, D1)',
    async (status, Cls) => {
      answer(status, 'refused', { 'content-type': 'text/plain' });
      const error = await failure();
      expect(error).toBeInstanceOf(Cls);
      expect(error.code).toBeUndefined();
    },
  );

  it('a 502 without the identity-provider code is a ServerError, not IdentityProviderError', async () => {
    answer(502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', {
      'content-type': 'text/html',
    });
    const error = await failure();
    expect(error).toBeInstanceOf(ServerError);
    expect(error).not.toBeInstanceOf(IdentityProviderError);
    expect(error.message).toContain('502 Bad Gateway');
    expect(error.message).toContain('proxy or gateway');
  });

  it('400 carries the errors list and names each field in the message', async () => {
    answer(400, {
      ...problem(400, 'validation_failed', 'Bad Request', 'The request failed validation'),
      errors: [
        { path: '/emial', message: 'unknown field' },
        { path: '/transcript', message: 'must have at least 10 characters' },
      ],
    });
    const error = await failure();
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).errors).toEqual([
      { path: '/emial', message: 'unknown field' },
      { path: '/transcript', message: 'must have at least 10 characters' },
    ]);
    expect(error.message).toContain('/emial: unknown field');
  });

  it.each([
    'rep_not_in_transcript',
    'user_creation_disabled',
    'email_domain_not_allowed',
    'mission_not_found',
    'scorecard_not_found',
    'user_not_found',
  ])('422 %s is the reason discriminant', async (code) => {
    answer(422, problem(422, code, 'Unprocessable', 'refused'));
    const error = (await failure()) as UnprocessableError;
    expect(error).toBeInstanceOf(UnprocessableError);
    expect(error.reason).toBe(code);
  });

  it('the reason type is exactly the six codes', () => {
    expectTypeOf<UnprocessableReason>().toEqualTypeOf<
      | 'rep_not_in_transcript'
      | 'user_creation_disabled'
      | 'email_domain_not_allowed'
      | 'mission_not_found'
      | 'scorecard_not_found'
      | 'user_not_found'
    >();
    expectTypeOf<UnprocessableError['reason']>().toEqualTypeOf<UnprocessableReason | undefined>();
  });

  it("ApiError.code is typed as the API's problem codes, and still takes a code it does not know", () => {
    // The known codes are literals a caller can switch on (an editor completes them) …
    expectTypeOf<'seat_limit_reached'>().toExtend<NonNullable<ApiError['code']>>();
    expectTypeOf<ProblemCode>().toExtend<NonNullable<ApiError['code']>>();
    expectTypeOf<ApiError['code']>().toEqualTypeOf<ApiErrorCode | undefined>();
    // … the union has not collapsed into plain `string` (which would make every literal check
    // pass): `ProblemCode` is not `string`, yet a new code from the service is a valid value.
    expectTypeOf<ProblemCode>().not.toEqualTypeOf<string>();
    expectTypeOf<ApiErrorCode>().not.toEqualTypeOf<string>();
    expectTypeOf<'a_code_from_a_newer_service'>().toExtend<ApiErrorCode>();
    const known: ApiErrorCode[] = ['seat_limit_reached', 'rate_limited', 'brand_new_reason'];
    expect(known).toHaveLength(3);
  });

  it('a 422 with a code this client does not know has reason undefined but keeps the code', async () => {
    answer(422, problem(422, 'brand_new_reason', 'Unprocessable', 'refused'));
    const error = (await failure()) as UnprocessableError;
    expect(error.reason).toBeUndefined();
    expect(error.code).toBe('brand_new_reason');
  });

  it('429 exposes Retry-After as retryAfterMs', async () => {
    answer(429, problem(429, 'rate_limited', 'Too Many Requests', 'slow down'), {
      'retry-after': '7',
    });
    const error = (await failure()) as RateLimitError;
    expect(error.retryAfterMs).toBe(7_000);
  });

  it('any status with Retry-After exposes it as retryAfterMs (e.g. 503)', async () => {
    answer(503, { detail: 'maintenance' }, { 'retry-after': '30' });
    const error = await failure();
    expect(error).toBeInstanceOf(ServerError);
    expect(error.retryAfterMs).toBe(30_000);
  });
});

describe('any error body gives a useful message (D1: read leniently)', () => {
  it.each([
    ['plain text', 'upstream exploded', 'text/plain', 'upstream exploded'],
    ['{ message }', '{"message":"Forbidden by policy"}', 'application/json', 'Forbidden by policy'],
    ['{ error }', '{"error":"invalid_token"}', 'application/json', 'invalid_token'],
    [
      '{ error: { message } }',
      '{"error":{"message":"quota exceeded","code":"quota"}}',
      'application/json',
      'quota exceeded',
    ],
    ['empty', '', 'text/plain', 'no error body'],
    [
      'HTML',
      '<!DOCTYPE html><title>Service Unavailable</title>',
      'text/html',
      'Service Unavailable',
    ],
  ])('%s', async (_name, text, type, expected) => {
    answer(500, text, { 'content-type': type });
    const error = await failure();
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toContain('500');
    expect(error.message).toContain(expected);
    expect(error.message).toContain(`POST ${CREATE_URL}`);
  });

  it('a long text body is cut to a snippet', async () => {
    answer(500, 'x'.repeat(5_000), { 'content-type': 'text/plain' });
    const error = await failure();
    expect(error.message.length).toBeLessThan(400);
  });

  it('a { error } JSON body yields its code', async () => {
    answer(401, { error: { message: 'bad key', code: 'unauthorized' } });
    const error = await failure();
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe('unauthorized');
  });
});

describe('credentials never leak into errors', () => {
  const secretClient = () =>
    createRcsClient({ baseUrl: BASE, apiKey: API_KEY, token: TOKEN, maxRetries: 0 });

  const leaks = (error: unknown) => {
    const texts = [
      String(error),
      (error as Error).message,
      JSON.stringify(error),
      (error as Error).stack ?? '',
    ];
    return texts.some((t) => t.includes(API_KEY) || t.includes(TOKEN));
  };

  it('even when the service echoes the key and token in its error body', async () => {
    server.use(
      http.post(CREATE_URL, ({ request }) =>
        HttpResponse.json(
          problem(
            401,
            'unauthorized',
            `bad key ${request.headers.get('x-api-key')}`,
            `token ${request.headers.get('authorization')} rejected`,
          ),
          { status: 401 },
        ),
      ),
    );
    let caught: unknown;
    await secretClient()
      .sessions.create(body)
      .catch((e) => {
        caught = e;
      });
    expect(caught).toBeInstanceOf(AuthenticationError);
    // The echo really happened, so the test would see a leak.
    expect((caught as AuthenticationError).detail).toContain('[REDACTED]');
    expect(leaks(caught)).toBe(false);
  });

  it('in a plain-text echo', async () => {
    server.use(
      http.post(CREATE_URL, ({ request }) =>
        HttpResponse.text(`denied: ${request.headers.get('x-api-key')}`, { status: 403 }),
      ),
    );
    const caught = await secretClient()
      .sessions.create(body)
      .catch((e) => e);
    expect(caught).toBeInstanceOf(SeatLimitError);
    expect(caught.message).toContain('[REDACTED]');
    expect(leaks(caught)).toBe(false);
  });

  it('in connection errors', async () => {
    server.use(http.post(CREATE_URL, () => HttpResponse.error()));
    const caught = await secretClient()
      .sessions.create(body)
      .catch((e) => e);
    expect(caught).toBeInstanceOf(ConnectionError);
    expect(leaks(caught)).toBe(false);
  });

  it('sends the key as X-API-KEY and the token as Bearer', async () => {
    let seen: Headers | undefined;
    server.use(
      http.get(`${BASE}/api/v1/real-call-sessions/:id`, ({ request }) => {
        seen = request.headers;
        return HttpResponse.json(problem(404, 'not_found', 'Not Found', 'no such session'), {
          status: 404,
        });
      }),
    );
    await expect(secretClient().sessions.get(SESSION_ID)).rejects.toBeInstanceOf(NotFoundError);
    expect(seen?.get('x-api-key')).toBe(API_KEY);
    expect(seen?.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(seen?.get('user-agent')).toMatch(/^rcs-client\//);
  });
});

describe('toJSON', () => {
  it('an ApiError serialises with everything a log or --json output needs', async () => {
    answer(422, problem(422, 'rep_not_in_transcript', 'Unprocessable', 'the rep never speaks'), {
      'x-request-id': 'req-7',
    });
    const json = JSON.parse(JSON.stringify(await failure()));
    expect(json).toMatchObject({
      name: 'UnprocessableError',
      status: 422,
      code: 'rep_not_in_transcript',
      reason: 'rep_not_in_transcript',
      detail: 'the rep never speaks',
      requestId: 'req-7',
      method: 'POST',
      url: CREATE_URL,
    });
    expect(json.message).toContain('the rep never speaks');
  });
});

describe('toJSON of the non-HTTP errors', () => {
  it('TimeoutError, WaitTimeoutError carry what a caller needs', () => {
    const t = new TimeoutError(1_000, {
      method: 'GET',
      url: `${BASE}/x`,
      mayHaveBeenCreated: false,
    });
    expect(t).toBeInstanceOf(ConnectionError);
    expect(t.toJSON()).toMatchObject({ name: 'TimeoutError', timeoutMs: 1_000 });
    const w = new WaitTimeoutError(SESSION_ID, 5_000, 'PROCESSING');
    expect(w.toJSON()).toMatchObject({ sessionId: SESSION_ID, lastState: 'PROCESSING' });
    expect(w.message).toContain(SESSION_ID);
  });
});
