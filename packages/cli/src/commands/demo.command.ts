import { examples, type RegisterCommand } from './kit.js';

/** `rcs demo` (cli.md): no set-up at all; the run is ./demo.js. */
export const registerDemo: RegisterCommand = (root, kit) => {
  root
    .command('demo')
    .description('try everything locally: mock, upload, score, export (no set-up needed)')
    .addHelpText('after', examples(['rcs demo', 'rcs demo --json']))
    .action(
      kit.action(async (ctx) => {
        const { run } = await import('./demo.js');
        return run({}, ctx);
      }),
    );
};
