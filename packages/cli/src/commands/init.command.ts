import { Argument } from '@commander-js/extra-typings';
import { examples, type RegisterCommand } from './kit.js';

/** `rcs init nightly [DIR]`, in the manner of `dlt init`; the run is ./init.js. */
export const registerInit: RegisterCommand = (root, kit) => {
  root
    .command('init')
    .description(
      'write a recipe to copy: nightly = DuckDB loader, cron script, GitHub Actions workflow',
    )
    .addArgument(new Argument('<recipe>', 'the recipe').choices(['nightly'] as const))
    .argument('[dir]', 'where its files go (no file there is ever replaced)', 'rcs-nightly')
    .addHelpText('after', examples(['rcs init nightly', 'rcs init nightly /opt/rcs-nightly']))
    .action(kit.action(async (ctx, _recipe, dir) => (await import('./init.js')).run({ dir }, ctx)));
};
