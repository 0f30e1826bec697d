import { readFile } from 'node:fs/promises';
import type { RcsClient } from '@rcs/client';
import {
  type ConfigKey,
  configPath,
  DEFAULT_PROFILE,
  type Profile,
  profileNameOf,
  profileOf,
  readConfig,
} from './config.js';
import { CliError, type CredentialSources, noteCredentialSources, usageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { parseDuration, type RequestDeadline, requestDeadlineMs } from './network/deadline.js';
import { createProgress, type Progress } from './output/progress.js';
import { safeLine } from './output/sanitize.js';
import type { RunTracer } from './tracing/request.js';

/** The global flags of cli.md, as commander hands them over. */
export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  token?: string;
  profile?: string;
  apiKeyFile?: string;
  tokenFile?: string;
  apiKeyStdin?: boolean;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  traceFile?: string;
  retryFor?: string;
}

/** Everything a command touches outside itself, injected so that commands run in tests too. */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  signal: AbortSignal;
  /**
   * Aborted when the reader of stdout went away (EPIPE, `rcs … | head`): commands that stream many
   * results stop on it. Optional so that hand-built contexts (tests) need not set it.
   */
  outputClosed?: AbortSignal;
  /** Builds the SDK client; defaults to `createRcsClient` (tests pass a fake or a mock's fetch). */
  createClient?: (options: import('@rcs/client').RcsClientOptions) => RcsClient;
}

export interface CliContext extends Omit<CliIO, 'stdin' | 'createClient'> {
  /** Colour on stderr: a TTY and no NO_COLOR (cli.md). */
  color: boolean;
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /**
   * Resolves base URL and credentials (flag > env > config profile) and builds the client once.
   * `deadline`: what the command's `--timeout` means for each request (network/deadline.ts); the
   * first call's counts, so a command passes it wherever it asks for the client.
   */
  getClient(deadline?: RequestDeadline): Promise<RcsClient>;
  /**
   * The credentials the client sends (resolved as for getClient). Only for fingerprints that
   * reveal nothing of them (D28, the upload ledger); never for output.
   */
  getCredentials(): Promise<{ apiKey?: string | undefined; token?: string | undefined }>;
  /** Human prose on stderr: only on a TTY and not with --quiet. */
  log(msg: string): void;
  /** A warning or error line on stderr, always (scripts need to see why something failed). */
  error(msg: string): void;
  /** Removes the credentials in use (known once getClient ran) from text bound for disk. */
  redact(text: string): string;
  /** The one progress component on stderr: live only on a TTY and not with --quiet. */
  progress(): Progress;
  /** Set when the run is traced: spans for the command's own units of work. */
  tracer?: RunTracer | undefined;
}

export interface ResolvedSettings {
  profile: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  token: string | undefined;
  /** `--retry-for`, RCS_RETRY_FOR or the profile's `retry-for`, in milliseconds (default 0). */
  retryForMs: number;
  /** Where each setting came from, as the user gave it (the hints name it). */
  sources: CredentialSources;
}

async function readSecretFile(path: string, flag: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(
      `${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const secret = text.trim();
  if (secret === '') throw usageError(`${flag}: ${path} is empty`);
  return secret;
}

/** All of a stream as UTF-8 (standard input for `--api-key-stdin`, `rcs config set KEY -`). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Settings by precedence: flag (including --api-key-file / --token-file / --api-key-stdin, which
 * keep secrets out of shell history and the process list), then environment, then the profile.
 */
export async function resolveSettings(
  globals: GlobalOptions,
  io: Pick<CliIO, 'env' | 'stdin'>,
): Promise<ResolvedSettings> {
  const env = io.env;
  const { name: profileName, explicit } = profileNameOf(globals.profile, env);
  const path = configPath(env);
  const config = await readConfig(path);
  const profile: Profile | undefined = profileOf(config, profileName);
  if (explicit && profile === undefined) {
    const known = Object.keys(config.profiles);
    throw usageError(
      `no profile "${profileName}" in ${path}` +
        (known.length ? ` (profiles: ${known.join(', ')})` : '') +
        `; create it with \`rcs config set base-url URL --profile ${profileName}\``,
    );
  }
  let apiKey = globals.apiKey;
  const sources: CredentialSources = {};
  if (apiKey !== undefined) sources.apiKey = '--api-key';
  if (apiKey === undefined && globals.apiKeyFile !== undefined) {
    apiKey = await readSecretFile(globals.apiKeyFile, '--api-key-file');
    sources.apiKey = `--api-key-file ${globals.apiKeyFile}`;
  }
  if (apiKey === undefined && globals.apiKeyStdin) {
    apiKey = (await readAll(io.stdin)).trim();
    if (apiKey === '') throw usageError('--api-key-stdin: standard input was empty');
    sources.apiKey = '--api-key-stdin';
  }
  let token = globals.token;
  if (token !== undefined) sources.token = '--token';
  if (token === undefined && globals.tokenFile !== undefined) {
    token = await readSecretFile(globals.tokenFile, '--token-file');
    sources.token = `--token-file ${globals.tokenFile}`;
  }
  // An explicit credential flag wins over every other source of either kind, so that
  // `--token X` is not silently combined with an RCS_API_KEY from the environment (D22: when both
  // headers are sent, each must be valid).
  const flagged = apiKey !== undefined || token !== undefined;
  if (!flagged) {
    apiKey = env.RCS_API_KEY || undefined;
    token = env.RCS_TOKEN || undefined;
    if (apiKey !== undefined) sources.apiKey = 'RCS_API_KEY';
    if (token !== undefined) sources.token = 'RCS_TOKEN';
  }
  if (apiKey === undefined && token === undefined) {
    apiKey = profile?.['api-key'];
    token = profile?.token;
    const where = `${path} (profile ${profileName})`;
    if (apiKey !== undefined) sources.apiKey = where;
    if (token !== undefined) sources.token = where;
    const named = profileName === DEFAULT_PROFILE ? '' : ` --profile ${profileName}`;
    if (apiKey !== undefined || token !== undefined) {
      sources.replaceWith = `rcs config set ${apiKey !== undefined ? 'api-key' : 'token'} -${named}`;
    }
  }
  assertOneLine(apiKey, `the API key from ${sources.apiKey}`);
  assertOneLine(token, `the token from ${sources.token}`);
  // Each setting by the same precedence, with the name of where it came from.
  const setting = (flag: string | undefined, variable: string, key: ConfigKey) => {
    if (flag !== undefined) return { value: flag, from: `--${key}` };
    if (env[variable]) return { value: env[variable], from: variable };
    const value = profile?.[key];
    return { value, from: `${key} in the config file ${path} (profile ${profileName})` };
  };
  const base = setting(globals.baseUrl, 'RCS_BASE_URL', 'base-url');
  if (base.value !== undefined) sources.baseUrl = base.from;
  const retryFor = setting(globals.retryFor, 'RCS_RETRY_FOR', 'retry-for');
  const retryForMs =
    retryFor.value === undefined ? 0 : parseDuration(retryFor.from, retryFor.value);
  return { profile: profileName, baseUrl: base.value, apiKey, token, retryForMs, sources };
}

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A credential is one line of printable text. One with a control character (`KEY\n# rotated`: a
 * key file with a comment, two keys pasted together) is refused before any use: sent, it would
 * be rejected by the HTTP stack or the service with messages that quote it in escaped forms.
 * The error names where it came from, never any part of it.
 */
function assertOneLine(secret: string | undefined, what: string): void {
  if (secret === undefined || !CONTROL.test(secret)) return;
  throw usageError(
    `${what} contains a line break or another control character, so it was not used (a credential is one line of printable text; it is not shown here): fix it, e.g. keep only the key's line in the file`,
  );
}

/** A URL that carries `user:password@` is refused (cli.md "Unattended runs"), shown without it. */
export function assertNoUrlCredentials(raw: string, what: string): void {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return; // Not a URL at all: the client says so, with the check's own hint.
  }
  if (!url.username && !url.password) return;
  url.username = '';
  url.password = '';
  throw usageError(
    `${what} must not contain credentials (user:password@): ${url.href}; pass the key with RCS_API_KEY, --api-key-file or \`rcs config set api-key -\``,
  );
}

export function createContext(globals: GlobalOptions, io: CliIO): CliContext {
  const color = io.stderrIsTTY && !('NO_COLOR' in io.env && io.env.NO_COLOR !== '');
  const quiet = Boolean(globals.quiet);
  const verbose = Boolean(globals.verbose) && !quiet;
  let client: Promise<RcsClient> | undefined;
  let resolved: Promise<ResolvedSettings> | undefined;
  const settingsOnce = () => (resolved ??= resolveSettings(globals, io));
  // Until the client is built there are no credentials to remove; the client (and its redactor)
  // is loaded only by the commands that talk to the service, not by `rcs check` or `rcs config`.
  let redactSecrets: (text: string) => string = (text) => text;

  const ctx: CliContext = {
    stdout: io.stdout,
    stderr: io.stderr,
    stdoutIsTTY: io.stdoutIsTTY,
    stderrIsTTY: io.stderrIsTTY,
    color,
    json: Boolean(globals.json),
    quiet,
    verbose,
    version: io.version,
    signal: io.signal,
    ...(io.outputClosed ? { outputClosed: io.outputClosed } : {}),
    env: io.env,
    cwd: io.cwd,
    log(msg) {
      if (io.stderrIsTTY && !quiet) io.stderr.write(`${msg}\n`);
    },
    error(msg) {
      io.stderr.write(`rcs: ${redactSecrets(msg)}\n`);
    },
    redact: (text) => redactSecrets(text),
    progress() {
      return createProgress(io.stderr, io.stderrIsTTY && !quiet);
    },
    getClient: (deadline) => (client ??= build(deadline)),
    async getCredentials() {
      const { apiKey, token } = await settingsOnce();
      return { apiKey, token };
    },
  };

  async function build(deadline: RequestDeadline | undefined): Promise<RcsClient> {
    const settings = await settingsOnce();
    if (settings.baseUrl) assertNoUrlCredentials(settings.baseUrl, 'the base URL');
    if (!settings.baseUrl) {
      throw usageError(
        'no service URL: pass --base-url, set RCS_BASE_URL, or run `rcs config set base-url URL` (try `rcs demo` for a local mock)',
      );
    }
    if (!settings.apiKey && !settings.token) {
      throw new CliError(
        EXIT.auth,
        'no credentials: set RCS_API_KEY (or RCS_TOKEN), pass --api-key-file FILE, or run `rcs config set api-key -`',
      );
    }
    noteCredentialSources(settings.sources);
    const [{ createRcsClient }, { makeRedactor }] = await Promise.all([
      import('@rcs/client'),
      import('@rcs/client/internal'),
    ]);
    const redact = makeRedactor([settings.apiKey, settings.token]);
    redactSecrets = redact;
    // (safeLine: a request id or URL from the service cannot move the terminal.)
    const note = (m: string) => io.stderr.write(`[rcs] ${safeLine(redact(m))}\n`);
    const create = io.createClient ?? createRcsClient;
    const deadlineMs = requestDeadlineMs(io.env, deadline);
    // The CLI's one HTTP stack: undici with a dispatcher for every request, direct or through the
    // proxy of the environment, or undefined under Bun and Deno. --verbose names the proxies in
    // use, never their credentials.
    const { proxySettings, describeProxies } = await import('./network/proxy.js');
    const proxies = proxySettings(io.env);
    if (proxies && verbose) io.stderr.write(`[rcs] ${describeProxies(proxies)}\n`);
    const { createNetworkFetch } = await import('./network/fetch.js');
    const fetch = createNetworkFetch(proxies, deadlineMs);
    try {
      return create({
        baseUrl: settings.baseUrl,
        apiKey: settings.apiKey,
        token: settings.token,
        userAgent: `rcs-cli/${io.version}`,
        // Default 0, the client's: a refused connection is a wrong base URL more often than an
        // outage, so it fails in about a second unless --retry-for asks to wait for the service.
        retryForMs: settings.retryForMs,
        deadlineMs,
        ...(fetch ? { fetch } : {}),
        // A traced run: each request a span, under the span current at its call.
        ...(ctx.tracer ? { tracing: ctx.tracer.clientTracing } : {}),
        // --verbose logs method, URL, status and retries; never a header, and redacted anyway.
        // A wait for the service (--retry-for) is one line per attempt, verbose or not.
        logger: {
          debug: (m) => verbose && note(m),
          warn: (m, data) =>
            data?.retryForLeftMs === undefined
              ? verbose && note(m)
              : quiet || ctx.error(safeLine(m)),
        },
      });
    } catch (error) {
      // e.g. a malformed URL, or credentials over plain http to a remote host.
      const message = redact((error as Error).message);
      if (/plain http/.test(message)) {
        throw usageError(
          `refusing to send credentials over plain http to ${new URL(settings.baseUrl).host}: use an https:// base URL (plain http is allowed only to this machine, e.g. the mock)`,
        );
      }
      throw usageError(`${message} (check ${settings.sources.baseUrl})`);
    }
  }

  return ctx;
}
