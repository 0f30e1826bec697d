/**
 * The exit code and one line for any error (docs/cli-reference.md "Request ids"). Apart from errors.ts, which every
 * start loads, because it tells the client's errors apart with `instanceof` and so loads the
 * client: `rcs --help` does not need it, program.ts imports this module when a command failed.
 */
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  classifyNetworkFailure,
  IdentityProviderConflictError,
  IdentityProviderError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  SeatLimitError,
  ServerError,
  TimeoutError,
  UnprocessableError,
  WaitTimeoutError,
} from '@rcs/client';
import { proxyOf } from '@rcs/client/internal';
import {
  CliError,
  type CredentialSources,
  InterruptedError,
  notedCredentialSources,
  signalExitCode,
} from './errors.js';
import { EXIT } from './exit-codes.js';
import { describeFailure } from './network/failure.js';
import { safeLine } from './output/sanitize.js';

function unauthorizedMessage(sources: CredentialSources): string {
  const from = [
    sources.apiKey && `the API key from ${sources.apiKey}`,
    sources.token && `the token from ${sources.token}`,
  ].filter(Boolean);
  if (from.length === 0) {
    return 'the credentials were refused (401); check RCS_API_KEY / RCS_TOKEN or run `rcs config set api-key -`';
  }
  return (
    `the credentials were refused (401); check ${from.join(' and ')}` +
    (sources.replaceWith ? `, or replace it with \`${sources.replaceWith}\`` : '')
  );
}

/** What a user checks on a 404: the base URL, and for a session read, the id too. */
function notFoundMessage(e: { method?: string | undefined; url?: string | undefined }): string {
  const path = e.url && URL.canParse(e.url) ? new URL(e.url).pathname : undefined;
  const root =
    "is --base-url the API's root? It is the service's origin, such as https://api.example.com";
  if (path && e.method === 'GET' && /\/api\/v1\/real-call-sessions\/[^/]+$/.test(path)) {
    return `not found (404): no such session in your organization; check the id. If it is right: ${root}`;
  }
  return `not found (404)${path ? ` at ${safeLine(path)}` : ''}: ${root}`;
}

export interface Described {
  exitCode: number;
  /** One line; for a request the service answered, it ends with `(request id …)`. */
  message: string;
}

/** The service's own explanation, when it sent one (D1 `detail`), made safe for a terminal. */
function detailOf(error: { detail?: string | undefined; message: string }): string {
  return safeLine(error.detail ?? error.message);
}

/**
 * Maps any error to the contract's exit code and one actionable line, which ends with the
 * service's request id when the service answered the failed request (docs/cli-reference.md "Request ids"):
 * the id a user quotes to the service's support. The one place the id is appended.
 */
export function describeError(
  error: unknown,
  credentials: CredentialSources = notedCredentialSources(),
): Described {
  const described = describeWithoutRequestId(error, credentials);
  const suffix = requestIdSuffix(error);
  // A message taken from the client's own error text may already end with it.
  if (suffix === '' || described.message.endsWith(suffix)) return described;
  return { ...described, message: `${described.message}${suffix}` };
}

/** ` (request id ID)` for an error of a request the service answered, else ''. */
export function requestIdSuffix(error: unknown): string {
  const requestId = (error as { requestId?: unknown } | null)?.requestId;
  return typeof requestId === 'string' && requestId !== ''
    ? ` (request id ${safeLine(requestId)})`
    : '';
}

/** The exit code and line for any error: the client's error classes by `instanceof`. */
function describeWithoutRequestId(error: unknown, credentials: CredentialSources): Described {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  // An AbortError (e.g. from node:timers/promises) carries the abort reason as its cause.
  const isAbort = error instanceof Error && error.name === 'AbortError';
  const interruption =
    error instanceof InterruptedError
      ? error
      : isAbort && error.cause instanceof InterruptedError
        ? error.cause
        : undefined;
  if (interruption?.signal === 'SIGPIPE') {
    return {
      exitCode: signalExitCode('SIGPIPE'),
      message: 'standard output was closed (EPIPE) before the command ended',
    };
  }
  if (interruption || isAbort) {
    return {
      exitCode: interruption ? signalExitCode(interruption.signal) : EXIT.interrupted,
      message: 'interrupted',
    };
  }
  if (!(error instanceof Error)) return { exitCode: EXIT.failure, message: safeLine(error) };
  const [, exitCode, message] = LINES.find(([kind]) => error instanceof kind) as Line<Error>;
  return { exitCode, message: message(error, credentials) };
}

/** One row of the table: a class of error (its subclasses too), its exit code, its line. */
type Line<E> = [
  abstract new (...args: never[]) => E,
  number,
  (e: E, c: CredentialSources) => string,
];
const line = <E>(kind: Line<E>[0], message: Line<E>[2], exitCode: number = EXIT.failure) =>
  [kind, exitCode, message] as Line<unknown>;

/** Each error class to its exit code and line; the first row the error is an instance of. */
const LINES: readonly Line<unknown>[] = [
  line(WaitTimeoutError, waitTimeoutMessage, EXIT.waitTimeout),
  line(ConnectionError, connectionMessage),
  line(AuthenticationError, (_, credentials) => unauthorizedMessage(credentials), EXIT.auth),
  line(
    SeatLimitError,
    () =>
      `the organization's seat limit is reached (403 seat_limit_reached), so the rep could not be created; free a seat or upload for an existing user`,
  ),
  line(
    IdentityProviderConflictError,
    () =>
      `the rep's email belongs to another organization in the identity provider (409); use the rep's address in this organization or --user-id`,
  ),
  // R9: a rejection creates neither user nor session, so running it again is safe.
  line(
    IdentityProviderError,
    () =>
      `the identity provider refused to create the rep (502); nothing was created, so run the upload again later`,
  ),
  line(UnprocessableError, (e) => unprocessableMessage(e.code, detailOf(e))),
  line(NotFoundError, notFoundMessage),
  line(BadRequestError, (e) => `the service rejected the request as invalid (400): ${detailOf(e)}`),
  line(
    PayloadTooLargeError,
    () => 'the request is over 1 MiB (413); split or shorten the transcript',
  ),
  line(
    RateLimitError,
    () =>
      'the service is rate-limiting (429) and retries ran out; lower --concurrency or try later',
  ),
  line(ServerError, (e) => `the service failed (${e.status}) after retries; try again later`),
  line(ApiError, (e) => `the service answered ${e.status}: ${detailOf(e)}`),
  line(Error, (e) => safeLine(e.message)),
];

/**
 * The wait for DONE ended (exit 5, cli.md). A session whose state no read returned is not "not
 * DONE yet": the line says the service could not be read in time and why, when a read failed
 * (one clear line at the deadline, a proxy that never answers included).
 */
function waitTimeoutMessage(e: WaitTimeoutError, credentials: CredentialSources): string {
  const id = safeLine(e.sessionId);
  const again = `wait again later with \`rcs sessions wait ${id}\``;
  if (e.lastState !== undefined) return `session ${id} is not DONE yet; ${again}`;
  const seconds = Math.round(e.timeoutMs / 100) / 10;
  const why =
    e.cause instanceof Error
      ? describeWithoutRequestId(e.cause, credentials).message
      : 'no answer; check your network';
  return `session ${id}: the service could not be read within ${seconds} s (${why}); ${again}`;
}

/**
 * A request that failed on the network: one line from the shared
 * classification (network/failure.ts), naming the proxy when the request went through one.
 */
function connectionMessage(e: ConnectionError): string {
  if (e.mayHaveBeenCreated) {
    return `the connection failed after the upload was sent, so its outcome is unknown; it was not re-sent (the next run looks for it on the service first): ${safeLine(e.message)}`;
  }
  const failure = classifyNetworkFailure(e.cause);
  if (e instanceof TimeoutError) {
    const seconds = Math.round(e.timeoutMs / 100) / 10;
    const proxy = proxyOf(e.cause);
    return `no answer within ${seconds} s from ${safeLine(e.url)}${
      proxy ? ` through the proxy ${proxy.shown} (${proxy.variable})` : ''
    }; check your network${proxy ? ' and the proxy' : ''}, or allow longer with --timeout SECONDS (or RCS_NETWORK_TIMEOUT)`;
  }
  // (A request stopped before it was sent, with nothing more said: the generic line.)
  if (failure && failure.kind !== 'not-sent') return safeLine(describeFailure(failure, e.url));
  return `could not reach the service: ${safeLine(e.message)}; check --base-url / RCS_BASE_URL and your network`;
}

/** R3, R8, D2, D3: the 422 reasons, each with what the user can do about it. */
function unprocessableMessage(code: string | undefined, detail: string): string {
  switch (code) {
    case 'rep_not_in_transcript':
      return `the transcript is speaker-labeled but the rep never speaks in it (422): a speaker-labeled transcript must have the rep speak; label the rep's cues with their email or use --speaker "Name=rep@company.com"`;
    case 'user_creation_disabled':
      return 'the rep has no account and automatic user creation is off for the organization (422); create the user first or pass an existing rep';
    case 'email_domain_not_allowed':
      return "the rep's email domain is not one of the organization's email domains (422); use the rep's company address";
    case 'mission_not_found':
      return 'no mission with that --mission-id in your organization (422); check the id (rcs export missions)';
    case 'scorecard_not_found':
      return 'no scorecard with that --scorecard-id in your organization (422); check the id (rcs export scorecards)';
    case 'user_not_found':
      return 'no user with that --user-id in your organization (422); check the id (rcs export users)';
    default:
      return `the service refused the upload (422): ${detail}`;
  }
}
