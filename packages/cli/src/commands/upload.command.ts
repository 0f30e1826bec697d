import { collect, examples, numberText, type RegisterCommand } from './kit.js';

/** `rcs upload` (cli.md): flags here, the run in ./upload.js (loaded when the command runs). */
export const registerUpload: RegisterCommand = (root, kit) => {
  root
    .command('upload')
    .description('upload transcripts for scoring (files or directories)')
    .argument(
      '<file...>',
      'transcript files (.srt .vtt .txt, meeting-tool exports) or directories (their regular files: links, FIFOs and subdirectories are skipped and named)',
    )
    .option('--email <email>', "the rep's email (or --user-id)")
    .option('--user-id <uuid>', "the rep's user id (or --email)")
    .option('--meeting-name <name>', 'meeting name (default: the file name without extension)')
    .option('--mission-id <hex24>', 'mission whose scorecard to use')
    .option('--scorecard-id <hex24>', 'scorecard to use')
    .option(
      '--speaker <Name=email>',
      'map a meeting-tool speaker to an email (repeatable)',
      collect,
    )
    .option('--wait', 'wait for each session to be scored and show the scorecard')
    .option(
      '--timeout <seconds>',
      'with --wait: the longest wait per session, exit 5 (default 600); without: the seconds a request may take, retries included (default 60)',
    )
    .option('--concurrency <n>', 'uploads in flight at once (default 4)', numberText)
    .option('--ledger <file>', 'ledger of finished uploads (default .rcs-ledger.jsonl)')
    .option('--force', 'upload again even if the ledger says it was uploaded')
    .option(
      '--dry-run',
      'say what each file would come to and which ledger line decided it; send nothing',
    )
    .option(
      '--no-resolve',
      'do not look up uploads of unknown outcome on the service (they are reported, not sent)',
    )
    .option('--no-validate', 'skip the offline pre-validation')
    .option('--strict', 'refuse a file that does not look like a transcript (CSV, JSON, HTML …)')
    .addHelpText(
      'after',
      examples([
        'rcs upload call.srt --email rep@acme.com',
        'rcs upload calls/ --email rep@acme.com --concurrency 8 --wait',
        'rcs upload zoom.transcript.vtt --email ana@acme.com --speaker "Ana Ruiz=ana@acme.com" --speaker "Ben Okafor=ben@client.com"',
        'rcs upload call.srt --user-id 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --json > results.jsonl',
      ]),
    )
    .action(
      kit.action(async (ctx, files, opts) => {
        const { run } = await import('./upload.js');
        return run({ ...opts, files }, ctx);
      }),
    );
};
