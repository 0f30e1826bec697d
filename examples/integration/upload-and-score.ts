/**
 * Upload a transcript, wait for its score, and read the results: the SDK's main path in one file.
 *
 *   RCS_BASE_URL=… RCS_API_KEY=… node upload-and-score.ts call.srt rep@acme.com
 *
 * Runs as is on Node ≥ 22.18 / 24 (type stripping); prints one JSON document on stdout.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  AuthenticationError,
  createRcsClient,
  isUnknownOutcome,
  UnprocessableError,
  WaitTimeoutError,
} from '@rcs/client';

const [file, repEmail] = process.argv.slice(2);
const { RCS_BASE_URL: baseUrl, RCS_API_KEY: apiKey } = process.env;
if (!file || !repEmail || !baseUrl || !apiKey) {
  console.error(
    'usage: RCS_BASE_URL=… RCS_API_KEY=… node upload-and-score.ts <transcript> <rep-email>',
  );
  process.exit(2);
}

const client = createRcsClient({ baseUrl, apiKey });

try {
  const transcript = await readFile(file, 'utf8');
  // R1: the rep is designated by email (or userId); the service answers before scoring (R10).
  const created = await client.sessions.create({
    transcript,
    meetingName: basename(file),
    email: repEmail,
  });
  console.error(`created session ${created.id} (${created.state}); waiting for the score…`);
  const session = await client.sessions.waitUntilDone(created.id, {
    timeoutMs: 120_000,
    onProgress: (s) => console.error(`  ${s.state}`),
  });
  console.log(
    JSON.stringify(
      {
        sessionId: session.id,
        score: session.analysis.score,
        completed: session.completed,
        scorecard: session.scorecardTitle ?? null,
        kpis: {
          listenRatio: session.kpis.listenRatio,
          longestMonologue: session.kpis.longestMonologue,
          talkSpeed: session.kpis.talkSpeed,
        },
        items: session.analysis.items.map((i) => ({
          name: i.name,
          solved: i.solved,
          score: i.score,
        })),
        participants: session.participantUserIds ?? [],
      },
      null,
      2,
    ),
  );
} catch (error) {
  // One branch per failure a caller handles differently (the client's error classes).
  if (error instanceof AuthenticationError)
    console.error('the API key was refused: check RCS_API_KEY');
  else if (error instanceof UnprocessableError)
    console.error(`the upload was refused: ${error.reason ?? error.message}`);
  else if (error instanceof WaitTimeoutError)
    console.error(`not scored yet; read it later: ${error.sessionId}`);
  else if (isUnknownOutcome(error))
    console.error('the connection dropped after sending: check before re-sending');
  else console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
