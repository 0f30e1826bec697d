import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  IdentityProviderConflictError,
  IdentityProviderError,
  NotFoundError,
  SeatLimitError,
  ServerError,
  UnprocessableError,
  WaitTimeoutError,
} from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/commands/did-you-mean.js';
import { describeError } from '../../src/describe-error.js';
import { CliError, InterruptedError, maskCommanderError } from '../../src/errors.js';
import { EXIT } from '../../src/exit-codes.js';

const api = (status: number, code?: string) => ({
  status,
  code,
  message: `HTTP ${status}`,
  detail: 'x',
});

describe('describeError: the contract exit code and one actionable line per failure', () => {
  it.each([
    [new AuthenticationError(api(401, 'unauthorized')), EXIT.auth, /credentials were refused/],
    [new WaitTimeoutError('abc', 1000), EXIT.waitTimeout, /rcs sessions wait abc/],
    [new SeatLimitError(api(403, 'seat_limit_reached')), EXIT.failure, /seat limit/],
    [new IdentityProviderConflictError(api(409)), EXIT.failure, /another organization/],
    [
      new IdentityProviderError(api(502, 'identity_provider_error')),
      EXIT.failure,
      /run the upload again later/,
    ],
    [
      new UnprocessableError(api(422, 'user_creation_disabled')),
      EXIT.failure,
      /automatic user creation is off/,
    ],
    [
      new UnprocessableError(api(422, 'something_new')),
      EXIT.failure,
      /refused the upload \(422\): x/,
    ],
    [new NotFoundError(api(404)), EXIT.failure, /not found \(404\)/],
    [new BadRequestError(api(400)), EXIT.failure, /invalid \(400\)/],
    [new ServerError(api(503)), EXIT.failure, /failed \(503\) after retries/],
    [new ConnectionError('ECONNREFUSED'), EXIT.failure, /could not reach the service/],
    [
      new ConnectionError('reset', { mayHaveBeenCreated: true }),
      EXIT.failure,
      /outcome is unknown/,
    ],
    [new InterruptedError(), EXIT.interrupted, /interrupted/],
    [new InterruptedError('SIGTERM'), 143, /interrupted/],
    [
      Object.assign(new Error('aborted'), {
        name: 'AbortError',
        cause: new InterruptedError('SIGTERM'),
      }),
      143,
      /interrupted/,
    ],
    [Object.assign(new Error('aborted'), { name: 'AbortError' }), EXIT.interrupted, /interrupted/],
    [new InterruptedError('SIGPIPE'), EXIT.ok, /standard output was closed/],
    [new CliError(EXIT.usage, 'bad flag'), EXIT.usage, /^bad flag$/],
  ] as const)('%s', (error, code, message) => {
    const d = describeError(error);
    expect(d.exitCode).toBe(code);
    expect(d.message).toMatch(message);
    expect(d.message).not.toContain('\n');
  });

  it("an error that only borrows a client class's name is not taken for it", () => {
    const impostor = Object.assign(new Error('from a plugin'), { name: 'AuthenticationError' });
    expect(describeError(impostor)).toEqual({ exitCode: EXIT.failure, message: 'from a plugin' });
  });

  it('neutralises control characters in service-supplied detail', () => {
    const d = describeError(new BadRequestError({ ...api(400), detail: 'bad\u001b[2Jfield' }));
    expect(d.message).toContain('bad\\x1b[2Jfield');
  });
});

describe('describeError: a 401 names where the credentials came from', () => {
  const refused = new AuthenticationError(api(401, 'unauthorized'));

  it.each([
    [{ apiKey: '--api-key' }, 'check the API key from --api-key'],
    [{ token: 'RCS_TOKEN' }, 'check the token from RCS_TOKEN'],
    [
      { apiKey: 'RCS_API_KEY', token: 'RCS_TOKEN' },
      'check the API key from RCS_API_KEY and the token from RCS_TOKEN',
    ],
    [
      {
        apiKey: '/home/a/.config/rcs/config.json (profile default)',
        replaceWith: 'rcs config set api-key -',
      },
      'check the API key from /home/a/.config/rcs/config.json (profile default), or replace it with `rcs config set api-key -`',
    ],
  ])('%j', (sources, hint) => {
    expect(describeError(refused, sources)).toEqual({
      exitCode: EXIT.auth,
      message: `the credentials were refused (401); ${hint}`,
    });
  });
});

describe("didYouMean: commander's rule for values", () => {
  const names = ['real-call-sessions', 'users', 'teams', 'tracks', 'missions', 'all'];
  it.each([
    ['al', '(Did you mean all?)'],
    ['user', '(Did you mean users?)'],
    ['team', '(Did you mean teams?)'],
    ['trakcs', '(Did you mean tracks?)'],
    ['real-call-session', '(Did you mean real-call-sessions?)'],
    ['xyz', ''],
    ['sessions', '(Did you mean missions?)'], // commander's rule: 2 edits, 75 % alike
  ])('%s → %j', (typed, hint) => {
    expect(didYouMean(typed, names)).toBe(hint);
  });
  it('names every candidate at the same best distance', () => {
    expect(didYouMean('rack', ['track', 'racks'])).toBe('(Did you mean one of racks, track?)');
  });
});

describe('maskCommanderError: what was typed on the command line is not echoed', () => {
  it.each([
    ["error: unknown option '--api-keyy=sk_live_1'", "error: unknown option '--api-keyy=…'"],
    ["error: unknown option '--api-keyy=it's=x'", "error: unknown option '--api-keyy=…'"],
    [
      "error: unknown option '--api-keyy=a\nb'\n(Did you mean --api-key?)",
      "error: unknown option '--api-keyy=…'\n(Did you mean --api-key?)",
    ],
    ["error: unknown option '-Ksk_live_1'", "error: unknown option '-K…'"],
    [
      "error: unknown option '--api-keyy'\n(Did you mean --api-key?)",
      "error: unknown option '--api-keyy'\n(Did you mean --api-key?)",
    ],
    ["error: unknown option '-K'", "error: unknown option '-K'"],
    ["error: unknown command 'uplod'", "error: unknown command 'uplod'"],
  ])('%j', (input, masked) => {
    expect(maskCommanderError(input)).toBe(masked);
  });
});

describe('describeError: the line of a failure the service answered ends with its request id', () => {
  it.each([
    new ServerError({ ...api(503), requestId: 'req-1' }),
    new AuthenticationError({ ...api(401, 'unauthorized'), requestId: 'req-1' }),
    new UnprocessableError({ ...api(422, 'rep_not_in_transcript'), requestId: 'req-1' }),
    // The client's own message already ends with the id: it is not repeated.
    new ServerError({
      ...api(500),
      detail: undefined,
      message: 'HTTP 500 (request id req-1)',
      requestId: 'req-1',
    }),
    new WaitTimeoutError(
      'abc',
      1000,
      'PENDING',
      new ServerError({ ...api(503), requestId: 'req-1' }),
    ),
  ])('%s', (error) => {
    const { message } = describeError(error);
    expect(message).toMatch(/ \(request id req-1\)$/);
    expect(message.split('request id').length).toBe(2);
  });

  it('the wait for DONE: exit 5 and the id to wait on; "not DONE yet" only when a state was read', () => {
    expect(describeError(new WaitTimeoutError('abc', 2_000, 'PROCESSING'))).toEqual({
      exitCode: EXIT.waitTimeout,
      message: 'session abc is not DONE yet; wait again later with `rcs sessions wait abc`',
    });
    // No read answered (a proxy that never answers): the state is unknown, and the line says so.
    expect(describeError(new WaitTimeoutError('abc', 2_500))).toEqual({
      exitCode: EXIT.waitTimeout,
      message:
        'session abc: the service could not be read within 2.5 s (no answer; check your network); wait again later with `rcs sessions wait abc`',
    });
    // Every read failed: the last failure, in its own words.
    const refused = new ConnectionError('ECONNREFUSED');
    expect(describeError(new WaitTimeoutError('abc', 2_000, undefined, refused))).toEqual({
      exitCode: EXIT.waitTimeout,
      message: `session abc: the service could not be read within 2 s (${describeError(refused).message}); wait again later with \`rcs sessions wait abc\``,
    });
  });

  it('a failure without an answer has no request id', () => {
    expect(describeError(new ConnectionError('GET x failed')).message).not.toMatch(/request id/);
  });

  it('a hostile request id cannot break the line', () => {
    const { message } = describeError(new ServerError({ ...api(503), requestId: 'a\nb\u001b[2J' }));
    expect(message).not.toMatch(/[\n\u001b]/);
  });
});
