import { isAbsolute } from 'node:path';
import { Writable } from 'node:stream';
import { DEFAULT_EXPORT_CONCURRENCY } from '@rcs/export';
import type { CliContext } from '../context.js';
import { SAMPLE_MEETING_NAME, sampleCall } from '../demo/sample-call.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { safeLine } from '../output/sanitize.js';
import { renderSession } from '../output/session-view.js';
import { runExport } from './export.js';

/**
 * The demo's own directory: never `rcs export`'s `./rcs-export`, so that the demo's data cannot
 * take the place of a real export (the manifest also says `demo: true`, and `rcs export` refuses
 * a directory of another service's, the demo's included).
 */
const DEMO_OUT_DIR = 'rcs-demo';

export interface DemoOptions {
  /** Where the nine exports go (default ./rcs-demo). */
  out?: string;
  /** --write-sample FILE: write the sample call there and stop (no mock, no upload). */
  writeSample?: string;
  /** How the user types `rcs` (`rcs`, `npx rcs`, `npx @rcs/cli`: invocation.ts); default `npx rcs`. */
  rcs?: string;
}

/** The sample's file name in the next steps: the one `--write-sample` is shown writing. */
const SAMPLE_FILE = 'call.srt';

/** Short enough that the demo is quick, long enough that the spinner shows the lifecycle (D18). */
const DEMO_PROCESSING_MS = 1500;

/**
 * `rcs demo`: on a fresh clone with no credentials and no server, start the mock in-process on a
 * free port, upload the bundled sample call, wait for its score, print it, export the nine
 * resources, and say what to try next.
 */
export async function run(opts: DemoOptions, ctx: CliContext): Promise<number> {
  if (opts.writeSample !== undefined) return writeSample(opts.writeSample, ctx);
  const outDir = opts.out ?? DEMO_OUT_DIR;
  const progress = ctx.progress();
  progress.set('demo', 'starting a local mock API');
  const { startMockServer } = await import('@rcs/mock/node');
  const server = await startMockServer({
    port: 0,
    host: '127.0.0.1',
    processingMs: DEMO_PROCESSING_MS,
  });
  try {
    const apiKey = server.info.apiKey;
    const rep = server.info.repEmails[0];
    if (!apiKey || !rep)
      throw new CliError(
        EXIT.failure,
        'the demo dataset has no API key or rep; this is a bug in @rcs/mock',
      );
    const { createRcsClient } = await import('@rcs/client');
    const client = createRcsClient({
      baseUrl: server.url,
      apiKey,
      userAgent: `rcs-cli/${ctx.version} demo`,
    });
    progress.done('demo', `mock API at ${server.url}`);
    progress.set('demo', `uploading the sample call for ${rep}`);
    const created = await client.sessions.create(
      { transcript: sampleCall(rep), meetingName: SAMPLE_MEETING_NAME, email: rep },
      { signal: ctx.signal },
    );
    const id = safeLine(created.id);
    progress.done('demo', `uploaded: session ${id} (${safeLine(created.state)})`);
    progress.set('demo', `waiting for session ${id} to be scored`);
    const session = await client.sessions.waitUntilDone(created.id, {
      signal: ctx.signal,
      timeoutMs: 60_000,
      initialIntervalMs: 250,
      onProgress: (s) => progress.set('demo', `waiting for session ${id}: ${safeLine(s.state)}`),
    });
    progress.done('demo', `scored: ${session.analysis.score}/100`);
    progress.stop();
    if (ctx.json) ctx.stdout.write(`${JSON.stringify({ baseUrl: server.url, session })}\n`);
    else
      ctx.stdout.write(
        `\n${renderSession(session, { color: ctx.color && ctx.stdoutIsTTY, repEmail: rep })}\n`,
      );

    const exportCode = await exportAll(ctx, client, outDir);
    const exported = exportCode === EXIT.ok;
    // On a terminal or not (a CI log, a pipe): stderr, so stdout stays the results (cli.md).
    if (!ctx.quiet) {
      ctx.stderr.write(
        `${nextSteps({ url: server.url, rep, apiKey, rcs: opts.rcs ?? 'npx rcs', outDir: exported ? outDir : undefined })}\n`,
      );
    }
    return exportCode;
  } finally {
    progress.stop();
    await server.close();
  }
}

/** `rcs export all` into `out` with the demo's client; its exit code (2: a refused directory). */
async function exportAll(
  ctx: CliContext,
  client: Awaited<ReturnType<CliContext['getClient']>>,
  out: string,
): Promise<number> {
  // With --json the demo's stdout is one JSON document: the export's own output is not added.
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const code = await runExport(
    {
      resources: ['all'],
      format: 'jsonl',
      out,
      concurrency: DEFAULT_EXPORT_CONCURRENCY,
      csvRaw: false,
      bom: false,
      allowDrift: false,
      demo: true,
    },
    { ...ctx, stdout: ctx.json ? sink : ctx.stdout, json: false, getClient: async () => client },
  );
  return code;
}

/**
 * What to type next, as the user runs `rcs`: the sample as a file, a mock that keeps
 * running (same seed, so the same API key and rep as this demo's), and the commands against it.
 */
function nextSteps(o: {
  url: string;
  rep: string;
  apiKey: string;
  rcs: string;
  outDir: string | undefined;
}): string {
  const domain = o.rep.split('@')[1] ?? '';
  const steps: [command: string, why?: string][] = [
    [`${o.rcs} demo --write-sample ${SAMPLE_FILE}`, 'the sample call, as a file'],
    [`${o.rcs} check ${SAMPLE_FILE} --email ${o.rep} --domains ${domain}`],
    [`${o.rcs} mock --port 4010`, 'in another terminal: a mock that keeps running'],
    [`export RCS_BASE_URL=http://127.0.0.1:4010 RCS_API_KEY=${o.apiKey}`],
    [`${o.rcs} upload ${SAMPLE_FILE} --email ${o.rep} --wait`],
    [`${o.rcs} export users --format csv`],
  ];
  const width = Math.max(...steps.filter(([, why]) => why).map(([command]) => command.length));
  return [
    '',
    o.outDir ? `The nine exports are in ${shownDir(o.outDir)} (with manifest.json).` : '',
    `Next (this demo's mock at ${o.url} has stopped with the demo):`,
    ...steps.map(([command, why]) => `  ${why ? `${command.padEnd(width)}  # ${why}` : command}`),
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** `rcs-demo` → `./rcs-demo`; a path that already says where it is stays as typed. */
function shownDir(dir: string): string {
  return isAbsolute(dir) || dir.startsWith('.') ? dir : `./${dir}`;
}

/**
 * `--write-sample FILE`: the demo's call as speaker-labeled SRT, labeled with the first rep of
 * the mock's demo data (the one `rcs mock` prints), so that `check` and `upload` against
 * `rcs mock` work on it as they are. An existing file is never replaced.
 */
async function writeSample(file: string, ctx: CliContext): Promise<number> {
  const { createMockApi } = await import('@rcs/mock');
  const rep = createMockApi().info.repEmails[0];
  if (!rep)
    throw new CliError(EXIT.failure, 'the demo dataset has no rep; this is a bug in @rcs/mock');
  const { writeFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  try {
    await writeFile(resolve(ctx.cwd, file), sampleCall(rep), { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new CliError(
      EXIT.usage,
      code === 'EEXIST'
        ? `--write-sample: ${file} exists; it is left as it is (name another file)`
        : `--write-sample: cannot write ${file} (${code})`,
    );
  }
  if (ctx.json) ctx.stdout.write(`${JSON.stringify({ file, rep })}\n`);
  else if (!ctx.quiet) ctx.stderr.write(`Wrote ${file}: a sample call whose rep is ${rep}\n`);
  return EXIT.ok;
}
