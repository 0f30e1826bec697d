import type { RcsClient, RealCallSession } from '@rcs/client';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { parseSeconds } from '../network/deadline.js';
import { safeLine } from '../output/sanitize.js';
import { renderSession } from '../output/session-view.js';
import { DEFAULT_WAIT_SECONDS, sessionIdArg } from './validate-flags.js';

export interface SessionsGetOptions {
  sessionId: string;
  /** Seconds, as typed: the network deadline (instead of RCS_NETWORK_TIMEOUT). */
  timeout?: string;
}

export interface SessionsWaitOptions {
  sessionId: string;
  /** Seconds, as typed: the wait for DONE; no request runs past it either. */
  timeout?: string;
}

/** `rcs sessions get`: the session as the API returns it (--json) or rendered for a person. */
export async function runGet(opts: SessionsGetOptions, ctx: CliContext): Promise<number> {
  const id = sessionIdArg(opts.sessionId);
  const timeoutSeconds = parseSeconds('--timeout', opts.timeout);
  const client = await ctx.getClient(timeoutSeconds === undefined ? undefined : { timeoutSeconds });
  const session = await client.sessions.get(id, { signal: ctx.signal });
  await print(ctx, client, session);
  return EXIT.ok;
}

/**
 * `rcs sessions wait`: polls until DONE (D18) with the client's backoff; exit 5 on timeout with
 * the id, so the user can wait again later (cli.md).
 */
export async function runWait(opts: SessionsWaitOptions, ctx: CliContext): Promise<number> {
  const id = sessionIdArg(opts.sessionId);
  const waitSeconds = parseSeconds('--timeout', opts.timeout) ?? DEFAULT_WAIT_SECONDS;
  const timeoutMs = waitSeconds * 1000;
  const client = await ctx.getClient({ waitSeconds });
  const progress = ctx.progress();
  progress.set(id, `waiting for session ${id}`);
  try {
    const session = await client.sessions.waitUntilDone(id, {
      timeoutMs,
      signal: ctx.signal,
      onProgress: (s) => progress.set(id, `waiting for session ${id}: ${safeLine(s.state)}`),
    });
    progress.stop();
    await print(ctx, client, session);
    return EXIT.ok;
  } finally {
    progress.stop();
  }
}

/**
 * The rep's email, for a person to read (as `upload --wait` shows the one typed): the session
 * names its rep by user id only, and the API's one way from an id to an email is the users
 * export, read until that user (it stops at the page that has them). Any failure of that look-up
 * leaves the id shown; only an interruption ends the command.
 */
async function repEmailOf(
  client: RcsClient,
  session: RealCallSession,
  signal: AbortSignal,
): Promise<string | undefined> {
  const userId = session.userId.toLowerCase();
  try {
    for await (const user of client.exports.users.all({ signal })) {
      if (user.id.toLowerCase() === userId) return user.email ?? undefined;
    }
  } catch (error) {
    if (signal.aborted) throw error;
  }
  return undefined;
}

async function print(ctx: CliContext, client: RcsClient, session: RealCallSession): Promise<void> {
  // --json: the session as the API returns it (cli.md), nothing added.
  if (ctx.json) {
    ctx.stdout.write(`${JSON.stringify(session)}\n`);
    return;
  }
  const repEmail = await repEmailOf(client, session, ctx.signal);
  ctx.stdout.write(
    renderSession(session, {
      color: ctx.color && ctx.stdoutIsTTY,
      ...(repEmail ? { repEmail } : {}),
    }),
  );
}
