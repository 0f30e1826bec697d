import { Writable } from 'node:stream';
import { DEFAULT_EXPORT_CONCURRENCY, DEFAULT_OUT_DIR } from '@rcs/export';
import type { CliContext } from '../context.js';
import { SAMPLE_MEETING_NAME, sampleCall } from '../demo/sample-call.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { safeLine } from '../output/sanitize.js';
import { renderSession } from '../output/session-view.js';
import { runExport } from './export.js';

export interface DemoOptions {
  /** Where the nine exports go (default ./rcs-export, as the README promises). */
  out?: string;
}

/** Short enough that the demo is quick, long enough that the spinner shows the lifecycle (D18). */
const DEMO_PROCESSING_MS = 1500;

/**
 * `rcs demo`: on a fresh clone with no credentials and no server, start the mock in-process on a
 * free port, upload the bundled sample call, wait for its score, print it, export the nine
 * resources, and say what to try next.
 */
export async function run(opts: DemoOptions, ctx: CliContext): Promise<number> {
  const outDir = opts.out ?? DEFAULT_OUT_DIR;
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

    const exported = await exportAll(ctx, client, outDir);
    ctx.log(nextSteps(server.url, rep, exported ? outDir : undefined));
    return exported ? EXIT.ok : EXIT.failure;
  } finally {
    progress.stop();
    await server.close();
  }
}

/** `rcs export all` into `out` with the demo's client. */
async function exportAll(
  ctx: CliContext,
  client: Awaited<ReturnType<CliContext['getClient']>>,
  out: string,
): Promise<boolean> {
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
    },
    { ...ctx, stdout: ctx.json ? sink : ctx.stdout, json: false, getClient: async () => client },
  );
  return code === EXIT.ok;
}

function nextSteps(url: string, rep: string, outDir: string | undefined): string {
  return [
    '',
    outDir ? `The nine exports are in ./${outDir} (with manifest.json).` : '',
    'Next, against your own mock (it keeps running in another terminal):',
    '  rcs mock --port 4010',
    `  export RCS_BASE_URL=http://127.0.0.1:4010 RCS_API_KEY=<the key it prints>`,
    `  rcs check my-call.srt --email ${rep}`,
    `  rcs upload my-call.srt --email ${rep} --wait`,
    '  rcs export users --format csv',
    `(this demo's mock at ${url} has stopped with the demo)`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}
