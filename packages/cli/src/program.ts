import './node-require.js';
import { Command, CommanderError, Option } from 'commander';
import pkg from '../package.json' with { type: 'json' };
import type { CommandSpec } from './commands/completion.js';
import type { CliContext, CliIO, GlobalOptions } from './context.js';
import { describeError, InterruptedError, maskCommanderError } from './errors.js';
import { EXIT, EXIT_CODE_TABLE, exitCodesText } from './exit-codes.js';

/**
 * `rcs`: commander wiring only (GitHub-CLI style). Each command lives in commands/<name>.ts as
 * options + `run(opts, ctx)` returning an exit code, and is imported lazily, so `rcs --help` loads
 * nothing but commander and this file (start-up goal: ≤ 1.5× `node -e 0`). bin/rcs.js, the
 * command, turns on Node's compile cache and then loads the bundle (main.ts, then this module).
 */

const examples = (lines: string[]) => `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('rcs')
    .description('Upload real-call transcripts for scoring, read sessions, and export your data.')
    .version(pkg.version, '-V, --version')
    .option('--base-url <url>', 'service origin, without /api/v1 (env RCS_BASE_URL)')
    .option('--api-key <key>', 'API key, sent as X-API-KEY (env RCS_API_KEY)')
    .option('--api-key-file <file>', 'read the API key from a file')
    .option('--api-key-stdin', 'read the API key from standard input')
    .option('--token <jwt>', 'bearer token (env RCS_TOKEN)')
    .option('--token-file <file>', 'read the bearer token from a file')
    .option('--profile <name>', 'config file profile (env RCS_PROFILE)')
    .option('--json', 'machine output on stdout')
    .option('-q, --quiet', 'less on stderr')
    .option('-v, --verbose', 'log requests on stderr (never secrets)')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) =>
        // One line, always (cli.md): commander puts its "Did you mean" on a second one. Values
        // typed on the command line are masked: a mistyped credential flag must not print it.
        write(
          `rcs: ${maskCommanderError(s)
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')} (see rcs --help)\n`,
        ),
    })
    .addHelpText(
      'after',
      `${examples([
        'rcs demo',
        'rcs check call.srt --email rep@acme.com',
        'rcs upload calls/ --email rep@acme.com --wait',
        'rcs export all --format csv --out ./backup',
      ])}\nExit codes: rcs help exit-codes. Config: rcs config list.\n`,
    );

  /** Runs a lazily imported command with the shared context; maps any error to one line + code. */
  const action =
    <A extends unknown[]>(runner: (ctx: CliContext, ...args: A) => Promise<number>) =>
    async (...args: A) => {
      const cmd = args[args.length - 1] as Command;
      const globals = cmd.optsWithGlobals() as GlobalOptions;
      // Loaded here, not at the top: `rcs --help` never needs the context or the config file.
      const { createContext } = await import('./context.js');
      const ctx = createContext(globals, io);
      try {
        setExit(await runner(ctx, ...args));
      } catch (error) {
        const described = describeError(error);
        ctx.error(described.message);
        setExit(described.exitCode);
      }
    };

  program
    .command('upload')
    .description('upload transcripts for scoring (files or directories)')
    .argument('<file...>', 'transcript files (.srt .vtt .txt, meeting-tool exports) or directories')
    .option('--email <email>', "the rep's email (rule 1)")
    .option('--user-id <uuid>', "the rep's user id (rule 1)")
    .option('--meeting-name <name>', 'meeting name (default: the file name without extension)')
    .option('--mission-id <hex24>', 'mission whose scorecard to use')
    .option('--scorecard-id <hex24>', 'scorecard to use')
    .option(
      '--speaker <Name=email>',
      'map a meeting-tool speaker to an email (repeatable)',
      collect,
    )
    .option('--wait', 'wait for each session to be scored and show the scorecard')
    .option('--timeout <seconds>', 'longest wait per session with --wait (default 600)')
    .option('--concurrency <n>', 'uploads in flight at once (default 4)')
    .option('--ledger <file>', 'ledger of finished uploads (default .rcs-ledger.jsonl)')
    .option('--force', 'upload again even if the ledger says it was uploaded')
    .option('--no-validate', 'skip the offline pre-validation')
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
      action(async (ctx, files: string[], opts: Record<string, unknown>) => {
        const { run } = await import('./commands/upload.js');
        return run({ ...opts, files } as never, ctx);
      }),
    );

  program
    .command('check')
    .description('check a transcript offline, as the upload would (no credentials needed)')
    .argument('<file>', 'transcript file')
    .option('--email <email>', "the rep's email (checks rule 8, previews KPIs)")
    .option('--user-id <uuid>', "the rep's user id")
    .option('--domains <list>', "the organization's email domains, comma-separated (rule 4)")
    .option(
      '--speaker <Name=email>',
      'map a meeting-tool speaker to an email (repeatable)',
      collect,
    )
    .addHelpText(
      'after',
      examples([
        'rcs check call.srt --email rep@acme.com --domains acme.com',
        'rcs check teams.vtt --speaker "Ana Ruiz=ana@acme.com" --json',
      ]),
    )
    .action(
      action(async (ctx, file: string, opts: Record<string, unknown>) => {
        const { run } = await import('./commands/check.js');
        return run({ ...opts, file } as never, ctx);
      }),
    );

  const sessions = program
    .command('sessions')
    .description('read real-call sessions')
    .addHelpText(
      'after',
      examples(['rcs sessions get <id>', 'rcs sessions wait <id> --timeout 120']),
    );
  sessions
    .command('get')
    .description('print a session')
    .argument('<sessionId>', 'session id (UUID)')
    .addHelpText(
      'after',
      examples(['rcs sessions get 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --json']),
    )
    .action(
      action(async (ctx, sessionId: string) => {
        const { runGet } = await import('./commands/sessions.js');
        return runGet({ sessionId }, ctx);
      }),
    );
  sessions
    .command('wait')
    .description('wait until a session is DONE, then print it (exit 5 on timeout)')
    .argument('<sessionId>', 'session id (UUID)')
    .option('--timeout <seconds>', 'give up after this long (default 600)')
    .addHelpText(
      'after',
      examples(['rcs sessions wait 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --timeout 120']),
    )
    .action(
      action(async (ctx, sessionId: string, opts: { timeout?: string }) => {
        const { runWait } = await import('./commands/sessions.js');
        return runWait({ sessionId, ...opts }, ctx);
      }),
    );

  program
    .command('export')
    .description('export data to JSONL or CSV files (see EXPORT.md)')
    .argument(
      '<resource...>',
      'real-call-sessions, track-assignments, mission-assignments, sprints, users, tracks, scorecards, missions, teams, or all',
    )
    .addOption(
      new Option('--format <format>', 'file format').choices(['jsonl', 'csv']).default('jsonl'),
    )
    // The literal is DEFAULT_OUT_DIR (program.test.ts keeps them equal): importing it would load
    // export/options.js, and the client with it, for every `rcs --help`.
    .option('--out <dir>', 'output directory, or - for stdout (one resource)', 'rcs-export')
    .option('--concurrency <n>', 'requests in flight at once (default 8)')
    .addOption(
      new Option('--archived <mode>', 'tracks: include or only archived (D8)').choices([
        'include',
        'only',
      ]),
    )
    .option('--csv-raw', 'CSV cells exactly as the API gives them (no spreadsheet-formula guard)')
    .option('--bom', 'start CSV files with a UTF-8 BOM (for Excel)')
    .option(
      '--allow-drift',
      'accept an export whose count drifted while it ran (warns in the manifest)',
    )
    .addHelpText(
      'after',
      examples([
        'rcs export all',
        'rcs export users teams --format csv --out ./backup',
        'rcs export real-call-sessions --out - | jq .learnerUserId',
      ]),
    )
    .action(
      action(async (ctx, resources: string[], opts: Record<string, unknown>) => {
        const { runExport } = await import('./commands/export.js');
        // Every option, --concurrency included, is checked in planExport (exit 2).
        return runExport(
          {
            resources,
            format: opts.format as 'jsonl' | 'csv',
            out: opts.out as string,
            concurrency: opts.concurrency as string | undefined,
            ...(opts.archived ? { archived: opts.archived as 'include' | 'only' } : {}),
            csvRaw: Boolean(opts.csvRaw),
            bom: Boolean(opts.bom),
            allowDrift: Boolean(opts.allowDrift),
          },
          ctx,
        );
      }),
    );

  program
    .command('mock')
    .description('run the mock API (first stdout line: its base URL)')
    .option('--port <n>', 'port, 0 = any free port (default 4010)')
    .option('--host <addr>', 'address to listen on (default 127.0.0.1)')
    .option('--fixture <file>', 'fixture JSON (default: generated demo data)')
    .option('--seed <n>', 'seed of the demo data')
    .option('--records <n>', 'size of the demo data (export records)')
    .option('--processing-ms <n>', 'time from upload to DONE (default 2000)')
    .option('--latency-ms <n>', 'delay before every answer')
    .option('--fault-rate <p>', 'share of requests that fail (0-1)')
    .option('--rate-limit <n>', 'requests per second per credential, then 429')
    .option('--no-cors', 'answer no CORS headers (D26: CORS is on by default)')
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
        'rcs mock --fixture my-org.json --latency-ms 50 --fault-rate 0.05',
        'rcs mock --cors-origin http://localhost:5173',
      ]),
    )
    .action(
      action(async (ctx, opts: Record<string, unknown>) => {
        const { run } = await import('./commands/mock.js');
        return run(opts as never, ctx);
      }),
    );

  program
    .command('demo')
    .description('try everything locally: mock, upload, score, export (no set-up needed)')
    .addHelpText('after', examples(['rcs demo', 'rcs demo --json']))
    .action(
      action(async (ctx) => {
        const { run } = await import('./commands/demo.js');
        return run({}, ctx);
      }),
    );

  const config = program
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
  for (const [name, args, description] of [
    ['set', '<key> <value>', 'set base-url, api-key or token (value - reads standard input)'],
    ['get', '<key>', 'print a setting (secrets show as hidden)'],
    ['unset', '<key>', 'remove a setting'],
    ['list', '', 'list profiles and settings (secrets hidden)'],
  ] as const) {
    const sub = config.command(`${name}${args ? ` ${args}` : ''}`).description(description);
    sub.action(
      action(async (ctx, ...rest: unknown[]) => {
        const { run } = await import('./commands/config.js');
        const globals = (rest[rest.length - 1] as Command).optsWithGlobals() as GlobalOptions;
        return run(
          {
            action: name,
            key: typeof rest[0] === 'string' ? rest[0] : undefined,
            value: typeof rest[1] === 'string' ? rest[1] : undefined,
            profile: globals.profile,
            stdin: io.stdin,
          },
          ctx,
        );
      }),
    );
  }

  program
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
      action(async (ctx, shell: string) => {
        const { run } = await import('./commands/completion.js');
        const { EXPORT_RESOURCES } = await import('@rcs/client');
        return run({ shell, program: describeProgram(program, [...EXPORT_RESOURCES, 'all']) }, ctx);
      }),
    );

  return program;
}

/** The command tree for completion scripts, read from commander so it cannot drift. */
function describeProgram(program: Command, resources: string[]): CommandSpec {
  const spec = (c: Command): CommandSpec => {
    const name = c.name();
    const out: CommandSpec = {
      name,
      description: c.description(),
      options: c.options.map((o) => o.long).filter((l): l is string => Boolean(l)),
      subcommands: c.commands.map(spec),
    };
    if (name === 'export') out.argChoices = resources;
    if (name === 'completion') out.argChoices = ['bash', 'zsh', 'fish'];
    if (name === 'set' || name === 'get' || name === 'unset')
      out.argChoices = ['base-url', 'api-key', 'token'];
    if (name === 'upload' || name === 'check') out.files = true;
    return out;
  };
  const root = spec(program);
  root.options.push('--help', '--version');
  return root;
}

/** Parses and runs; resolves with the exit code (the caller sets process.exitCode). */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const args = argv.slice(2);
  if (args[0] === 'help' && args[1] === 'exit-codes') {
    io.stdout.write(
      args.includes('--json')
        ? `${JSON.stringify(EXIT_CODE_TABLE.map(([code, meaning]) => ({ code, meaning })))}\n`
        : exitCodesText(),
    );
    return EXIT.ok;
  }
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse error is a usage error (exit 2).
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const described = describeError(error);
    io.stderr.write(`rcs: ${described.message}\n`);
    return described.exitCode;
  }
  return code;
}

/**
 * How long the graceful stop after the first SIGINT/SIGTERM may take (cli.md "Unattended runs"):
 * enough to rename finished files and append the ledger, short enough for a cron `timeout`.
 */
export const STOP_DEADLINE_MS = 3_000;

/** Runs `rcs` in this process: signals, real streams, and the exit code (see main.ts). */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController();
  // First signal: stop gracefully (ledger and files stay consistent); the command then returns
  // its exit code for the abort reason (describeError: 130, or 143 for SIGTERM). Work that never
  // ends (a hung disk, a stuck file-system call) cannot hold the process: past the deadline it
  // exits with that code anyway. A second signal exits at once.
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (controller.signal.aborted) dieBy(signal);
    controller.abort(new InterruptedError(signal));
    setTimeout(() => {
      process.stderr.write(
        `rcs: stopped after ${STOP_DEADLINE_MS / 1000} s without finishing the graceful stop\n`,
      );
      dieBy(signal);
    }, STOP_DEADLINE_MS).unref();
  };
  process.on('SIGINT', onSignal('SIGINT'));
  process.on('SIGTERM', onSignal('SIGTERM'));
  // `rcs … | head`: the reader went away, which is normal for a Unix tool (cli.md): commands stop
  // on `outputClosed` and the run ends without a message. Any other failure to write stdout (a
  // full device) is one line and exit 1, never a stack trace.
  const outputClosed = new AbortController();
  let outputFailed: NodeJS.ErrnoException | undefined;
  let returned = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && !outputFailed) {
      outputFailed = error;
      // After the command returned, its last lines were still buffered: report it now.
      if (returned) reportOutputFailure(error);
    }
    if (!outputClosed.signal.aborted) outputClosed.abort(new InterruptedError('SIGPIPE'));
  });
  try {
    const code = await main(process.argv, {
      stdout: process.stdout,
      stderr: process.stderr,
      // A getter: creating process.stdin loads fs streams and readline (~1 ms of every start,
      // bench/cli); only --api-key-stdin and the like read it.
      get stdin() {
        return process.stdin;
      },
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stderrIsTTY: Boolean(process.stderr.isTTY),
      env: process.env,
      cwd: process.cwd(),
      version: pkg.version,
      signal: controller.signal,
      outputClosed: outputClosed.signal,
    });
    // process.exitCode, never process.exit(): piped stdout must arrive whole (cli.md).
    process.exitCode = code;
    if (outputFailed) reportOutputFailure(outputFailed);
    else if (outputClosed.signal.aborted && !controller.signal.aborted) process.exitCode = EXIT.ok;
  } catch (error) {
    process.stderr.write(`rcs: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = EXIT.failure;
  }
  returned = true;
}

/**
 * Ends the process by `signal` itself, as if no handler were installed: the shell sees 130 / 143
 * (128 + the signal). Not process.exit(): it waits for libuv's worker threads, and one blocked for
 * good (opening a FIFO no one writes, a hung network file system) would keep the process forever.
 */
function dieBy(signal: 'SIGINT' | 'SIGTERM'): never {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // Delivery is asynchronous; nothing else may run meanwhile.
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
}

function reportOutputFailure(error: NodeJS.ErrnoException): void {
  const why = error.code === 'ENOSPC' ? 'no space left on the device' : error.message;
  process.stderr.write(`rcs: cannot write to standard output: ${why} (${error.code ?? 'error'})\n`);
  process.exitCode = EXIT.failure;
}
