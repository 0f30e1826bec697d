import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/** The command tree as main.ts's commander program describes it (so completion never drifts). */
export interface CommandSpec {
  name: string;
  description: string;
  options: string[];
  subcommands: CommandSpec[];
  /** Fixed values of the first argument (export resources, shells, config keys). */
  argChoices?: string[];
  /** The argument is a file path. */
  files?: boolean;
}

export interface CompletionOptions {
  shell: string;
  program: CommandSpec;
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;

const words = (list: string[]) => list.join(' ');

function bash(p: CommandSpec): string {
  const cases = p.subcommands
    .map((c) => {
      const second = c.subcommands.length
        ? words(c.subcommands.map((s) => s.name))
        : words(c.argChoices ?? []);
      const subOpts = c.subcommands
        .map((s) => `        ${s.name}) opts="$opts ${words(s.options)}" ;;`)
        .join('\n');
      return [
        `    ${c.name})`,
        `      opts="${words(c.options)}"; args="${second}"; files=${c.files ? 1 : 0}`,
        c.subcommands.length ? `      case "$sub" in\n${subOpts}\n      esac` : '',
        '      ;;',
      ]
        .filter(Boolean)
        .join('\n');
    })
    .join('\n');
  return `# rcs completion for bash: eval "$(rcs completion bash)" in ~/.bashrc
_rcs_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local cmd="\${COMP_WORDS[1]}" sub="\${COMP_WORDS[2]}"
  local globals="${words(p.options)}"
  local opts="" args="" files=0
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "${words(p.subcommands.map((c) => c.name))} $globals" -- "$cur") )
    return
  fi
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts $globals" -- "$cur") )
  elif [[ -n "$args" && ( $COMP_CWORD -eq 2 || "$cmd" == export ) ]]; then
    COMPREPLY=( $(compgen -W "$args" -- "$cur") )
  elif [[ $files -eq 1 ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o default -F _rcs_complete rcs
`;
}

function zsh(p: CommandSpec): string {
  // zsh runs the bash function through bashcompinit: one source of truth for both shells.
  return `#compdef rcs
# rcs completion for zsh: eval "$(rcs completion zsh)" in ~/.zshrc
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bash(p).split('\n').slice(1).join('\n')}`;
}

function fish(p: CommandSpec): string {
  const esc = (s: string) => s.replace(/'/g, "\\'");
  const out = [
    '# rcs completion for fish: rcs completion fish > ~/.config/fish/completions/rcs.fish',
    'complete -c rcs -f',
  ];
  for (const o of p.options) out.push(`complete -c rcs -l ${o.replace(/^--/, '')}`);
  for (const c of p.subcommands) {
    out.push(`complete -c rcs -n __fish_use_subcommand -a ${c.name} -d '${esc(c.description)}'`);
    const inCmd = `__fish_seen_subcommand_from ${c.name}`;
    for (const o of c.options) out.push(`complete -c rcs -n '${inCmd}' -l ${o.replace(/^--/, '')}`);
    for (const a of c.argChoices ?? []) out.push(`complete -c rcs -n '${inCmd}' -a ${a}`);
    if (c.files) out.push(`complete -c rcs -n '${inCmd}' -F`);
    for (const s of c.subcommands) {
      out.push(`complete -c rcs -n '${inCmd}' -a ${s.name} -d '${esc(s.description)}'`);
      for (const o of s.options) {
        out.push(
          `complete -c rcs -n '${inCmd}; and __fish_seen_subcommand_from ${s.name}' -l ${o.replace(/^--/, '')}`,
        );
      }
    }
  }
  return `${out.join('\n')}\n`;
}

/** `rcs completion bash|zsh|fish`: prints the script to stdout. */
export async function run(opts: CompletionOptions, ctx: CliContext): Promise<number> {
  const render = { bash, zsh, fish }[opts.shell as (typeof SHELLS)[number]];
  if (!render)
    throw usageError(`unknown shell "${opts.shell}"; choose one of ${SHELLS.join(', ')}`);
  ctx.stdout.write(render(opts.program));
  return EXIT.ok;
}
