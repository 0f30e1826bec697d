import { collect, examples, type RegisterCommand } from './kit.js';

/** `rcs check` (cli.md): offline, as the upload would check; the run is ./check.js. */
export const registerCheck: RegisterCommand = (root, kit) => {
  root
    .command('check')
    .description('check a transcript offline, as the upload would (no credentials needed)')
    .argument('<file>', 'transcript file')
    .option('--email <email>', "the rep's email (checks that the rep speaks, previews KPIs)")
    .option('--user-id <uuid>', "the rep's user id")
    .option(
      '--domains <list>',
      "the organization's email domains, comma-separated (labels of other domains are external)",
    )
    .option(
      '--speaker <Name=email>',
      'map a meeting-tool speaker to an email (repeatable)',
      collect,
    )
    .option('--strict', 'a file that does not look like a transcript (CSV, JSON, HTML …) fails')
    .addHelpText(
      'after',
      examples([
        'rcs check call.srt --email rep@acme.com --domains acme.com',
        'rcs check teams.vtt --speaker "Ana Ruiz=ana@acme.com" --json',
      ]),
    )
    .action(
      kit.action(async (ctx, file, opts) => {
        const { run } = await import('./check.js');
        return run({ ...opts, file }, ctx);
      }),
    );
};
