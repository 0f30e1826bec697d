import { examples, type RegisterCommand } from './kit.js';

/** `rcs demo` (cli.md): no set-up at all; the run is ./demo.js. */
export const registerDemo: RegisterCommand = (root, kit) => {
  root
    .command('demo')
    .description('try everything locally: mock, upload, score, export (no set-up needed)')
    // The literal is DEMO_OUT_DIR of ./demo.ts: importing it would load the run for `--help`.
    .option('--out <dir>', "where the demo's nine exports go (a directory of its own)", 'rcs-demo')
    .option(
      '--write-sample <file>',
      "write the demo's sample call (speaker-labeled SRT for the rep of `rcs mock`) to FILE, and stop",
    )
    .addHelpText(
      'after',
      examples([
        'rcs demo',
        'rcs demo --json --out /tmp/rcs-demo',
        'rcs demo --write-sample call.srt',
      ]),
    )
    .action(
      kit.action(async (ctx, opts) => {
        const { run } = await import('./demo.js');
        const { howToRun } = await import('./invocation.js');
        return run(
          {
            out: opts.out,
            ...(opts.writeSample !== undefined ? { writeSample: opts.writeSample } : {}),
            rcs: howToRun(process.argv[1], ctx.env),
          },
          ctx,
        );
      }),
    );
};
