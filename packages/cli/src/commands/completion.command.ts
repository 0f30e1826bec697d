import type { Command } from '@commander-js/extra-typings';
import type { CommandSpec } from './completion.js';
import { examples, type RegisterCommand } from './kit.js';

/** `rcs completion bash|zsh|fish` (cli.md); the scripts are written by ./completion.js. */
export const registerCompletion: RegisterCommand = (root, kit) => {
  root
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText(
      'after',
      `${examples([
        'rcs completion bash > ~/.local/share/bash-completion/completions/rcs',
        'rcs completion zsh > ~/.zsh/completions/_rcs   # a directory in your fpath',
        'rcs completion fish > ~/.config/fish/completions/rcs.fish',
      ])}\nOr for the current shell only: eval "$(rcs completion bash)"\n`,
    )
    .action(
      kit.action(async (ctx, shell) => {
        const { run } = await import('./completion.js');
        const { EXPORT_RESOURCES } = await import('@rcs/client');
        return run({ shell, program: describeProgram(root, [...EXPORT_RESOURCES, 'all']) }, ctx);
      }),
    );
};

/** The command tree for completion scripts, read from commander so it cannot drift. */
// biome-ignore lint/suspicious/noExplicitAny: any command of the tree, whatever its flags
function describeProgram(program: Command<any, any, any>, resources: string[]): CommandSpec {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const spec = (c: Command<any, any, any>): CommandSpec => {
    const name = c.name();
    const out: CommandSpec = {
      name,
      description: c.description(),
      options: c.options.map((o) => o.long).filter((l): l is string => Boolean(l)),
      subcommands: c.commands.map(spec),
    };
    if (name === 'export') out.argChoices = resources;
    if (name === 'completion') out.argChoices = ['bash', 'zsh', 'fish'];
    if (name === 'init') out.argChoices = ['nightly'];
    if (name === 'set' || name === 'get' || name === 'unset')
      out.argChoices = ['base-url', 'api-key', 'token'];
    if (name === 'upload' || name === 'check') out.files = true;
    return out;
  };
  const root = spec(program);
  root.options.push('--help', '--version');
  return root;
}
