import type { GlobalOptions } from '../context.js';
import { examples, type RegisterCommand } from './kit.js';

/** `rcs config set|get|unset|list` (cli.md); the run is ./config.js. */
export const registerConfig: RegisterCommand = (root, kit) => {
  const config = root
    .command('config')
    .description('manage the config file and its profiles')
    .addHelpText(
      'after',
      examples([
        'rcs config set base-url https://api.example.com',
        'printf %s "$KEY" | rcs config set api-key -',
        'rcs config set base-url http://127.0.0.1:4010 --profile local',
        'rcs config list',
      ]),
    );
  const run = async (
    ctx: Parameters<Parameters<typeof kit.action>[0]>[0],
    action: 'set' | 'get' | 'unset' | 'list',
    globals: GlobalOptions,
    key?: string,
    value?: string,
  ) => {
    const { run } = await import('./config.js');
    return run({ action, key, value, profile: globals.profile, stdin: kit.io.stdin }, ctx);
  };
  const withKey = [
    ['get', 'print a setting (secrets show as hidden)'],
    ['unset', 'remove a setting'],
  ] as const;
  config
    .command('set')
    .description('set base-url, api-key or token (value - reads standard input)')
    .argument('<key>')
    .argument('<value>')
    .action(
      kit.action((ctx, key, value, _opts, cmd) =>
        run(ctx, 'set', cmd.optsWithGlobals() as GlobalOptions, key, value),
      ),
    );
  for (const [name, description] of withKey) {
    config
      .command(name)
      .description(description)
      .argument('<key>')
      .action(
        kit.action((ctx, key, _opts, cmd) =>
          run(ctx, name, cmd.optsWithGlobals() as GlobalOptions, key),
        ),
      );
  }
  config
    .command('list')
    .description('list profiles and settings (secrets hidden)')
    .action(
      kit.action((ctx, _opts, cmd) => run(ctx, 'list', cmd.optsWithGlobals() as GlobalOptions)),
    );
};
