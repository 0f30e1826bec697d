import { collect, examples, numberText, type RegisterCommand } from './kit.js';

/** The number flags after --write-fixture, in the help's order; ./mock.js checks their ranges. */
const NUMBER_FLAGS = [
  ['--seed <n>', 'seed of the demo data'],
  ['--records <n>', 'size of the demo data (export records)'],
  ['--day <n>', 'night N of the demo data: each night changes ~2 % (default 0)'],
  ['--processing-ms <n>', 'time from upload to DONE (default 2000)'],
  ['--latency-ms <n>', 'delay before every answer'],
  ['--fault-rate <p>', 'share of requests that fail (0-1)'],
  ['--rate-limit <n>', 'requests per second per credential, then 429'],
  [
    '--drop-after-create <p>',
    'share of created sessions (0-1) whose answer is lost: the connection drops after the create',
  ],
] as const;

/** `rcs mock` (cli.md, mock-fixture.md); the run is ./mock.js. */
export const registerMock: RegisterCommand = (root, kit) => {
  const command = root
    .command('mock')
    .description('run the mock API (first stdout line: its base URL)')
    .option('--port <n>', 'port, 0 = any free port (default 4010)', numberText)
    .option('--host <addr>', 'address to listen on (default 127.0.0.1)')
    .option('--fixture <file>', 'fixture JSON, format: MOCK-FIXTURE.md (default: demo data)')
    .option('--write-fixture <file>', 'write the demo data as a new fixture file and exit');
  for (const [usage, help] of NUMBER_FLAGS) command.option(usage, help, numberText);
  command
    .option('--no-cors', 'answer no CORS headers (CORS is on by default)')
    .option(
      '--cors-origin <origin>',
      'allow only this origin (repeatable; default: any origin)',
      collect,
    )
    .addHelpText(
      'after',
      examples([
        'rcs mock',
        'rcs mock --port 0 --processing-ms 200',
        'rcs mock --port 4010 --day 1   # the next night: rehearse an export with --changes',
        'rcs mock --write-fixture my-org.json --records 200',
        'rcs mock --fixture my-org.json --latency-ms 50 --fault-rate 0.05',
        'rcs mock --cors-origin http://localhost:5173',
      ]),
    )
    .action(
      kit.action(async (ctx, opts) => {
        const { run } = await import('./mock.js');
        return run(opts, ctx);
      }),
    );
};
