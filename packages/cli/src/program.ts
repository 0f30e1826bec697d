import { Command, CommanderError } from '@commander-js/extra-typings';
import pkg from '../package.json' with { type: 'json' };
import { registerCheck } from './commands/check.command.js';
import { registerCompletion } from './commands/completion.command.js';
import { registerConfig } from './commands/config.command.js';
import { registerDemo } from './commands/demo.command.js';
import { registerExport } from './commands/export.command.js';
import { registerInit } from './commands/init.command.js';
import {
  type CommandKit,
  examples,
  type RegisterCommand,
  type RootCommand,
} from './commands/kit.js';
import { registerMock } from './commands/mock.command.js';
import { registerSessions } from './commands/sessions.command.js';
import { registerUpload } from './commands/upload.command.js';
import type { CliIO, GlobalOptions } from './context.js';
import { InterruptedError, maskCommanderError } from './errors.js';
import { EXIT, EXIT_CODE_TABLE, exitCodesText } from './exit-codes.js';
import { flushForcedExitHandlers, runForcedExitHandlers } from './forced-exit.js';
import { commandSpanName } from './tracing/command-name.js';
import { startTracing } from './tracing/request.js';

/**
 * `rcs`: the global flags and the list of commands, nothing else (GitHub-CLI style).
 * Each command declares its flags and typed options in commands/<name>.command.ts and runs in
 * commands/<name>.ts, which its action imports lazily, so `rcs --help` loads nothing but
 * commander and the declarations (start-up goal: bench/cli). main.ts, the bundle's entry, runs it.
 */

const COMMANDS: readonly RegisterCommand[] = [
  registerUpload,
  registerCheck,
  registerSessions,
  registerExport,
  registerMock,
  registerDemo,
  registerInit,
  registerConfig,
  registerCompletion,
];

function buildProgram(io: CliIO, setExit: (code: number) => void): RootCommand {
  const program: RootCommand = new Command();
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
    .option(
      '--trace-file <file>',
      'write the run as OpenTelemetry spans, OTLP JSON (env RCS_TRACE_FILE)',
    )
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: usageLine('rcs'),
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
  const action: CommandKit['action'] =
    (runner) =>
    async (...args) => {
      // commander passes the command itself last.
      const cmd = args[args.length - 1] as unknown as RootCommand;
      const globals = cmd.optsWithGlobals() as GlobalOptions;
      // Loaded here, not at the top: `rcs --help` never needs the context or the config file.
      const { createContext } = await import('./context.js');
      const ctx = createContext(globals, io);
      // Traces only when the OpenTelemetry environment or --trace-file asks.
      const tracing = await startTracing(
        io.env,
        globals.traceFile,
        commandSpanName(cmd, args),
        io.version,
        ctx.error,
      );
      if (tracing) ctx.tracer = tracing;
      let exitCode: number;
      try {
        exitCode = await (tracing
          ? tracing.inCommand(() => runner(ctx, ...args))
          : runner(ctx, ...args));
      } catch (error) {
        const { describeError } = await import('./describe-error.js');
        const described = describeError(error);
        ctx.error(described.message);
        exitCode = described.exitCode;
      }
      setExit(exitCode);
      await tracing?.finish(exitCode);
    };

  const kit: CommandKit = { io, action };
  for (const register of COMMANDS) register(program, kit);
  // Each command's parse errors point at its own help (`rcs export` without a resource: see
  // `rcs export --help`, which lists the nine), not at the list of commands.
  const pointAtHelp = (command: RootCommand, path: string): void => {
    for (const sub of command.commands as RootCommand[]) {
      const subPath = `${path} ${sub.name()}`;
      sub.configureOutput({ outputError: usageLine(subPath) });
      pointAtHelp(sub, subPath);
    }
  };
  pointAtHelp(program, 'rcs');
  return program;
}

/**
 * A parse error as one line, always (cli.md): commander puts its "Did you mean" on a second one.
 * Values typed on the command line are masked: a mistyped credential flag must not print it.
 */
function usageLine(command: string): (message: string, write: (s: string) => void) => void {
  return (message, write) =>
    write(
      `rcs: ${maskCommanderError(message)
        .replace(/^error: /, '')
        // Lines joined without a pattern around the newline: `\s*\n\s*` is quadratic on a long
        // run of blanks, and the message quotes what was typed (`--format "<80,000 blanks>x"`).
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .join(' ')} (see ${command} --help)\n`,
    );
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
  // `rcs help export` runs as `rcs export --help`: commander prints a command's help for `help`
  // without its preSubcommand hook, which fills in what the help shows (export.command.ts).
  const parsed =
    args[0] === 'help' && args.length > 1
      ? [...argv.slice(0, 2), ...args.slice(1), '--help']
      : argv;
  try {
    await program.parseAsync(parsed);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse error is a usage error (exit 2).
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { describeError } = await import('./describe-error.js');
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
const STOP_DEADLINE_MS = 3_000;
/** Past that deadline, how long spans may still take to reach a collector. */
const FORCED_FLUSH_MS = 1_000;

/** Runs `rcs` in this process: signals, real streams, and the exit code (see main.ts). */
export async function runFromProcess(): Promise<void> {
  const controller = new AbortController();
  // First signal: stop gracefully (ledger and files stay consistent); the command then returns
  // its exit code for the abort reason (describeError: 130, or 143 for SIGTERM). Work that never
  // ends (a hung disk, a stuck file-system call) cannot hold the process: past the deadline it
  // exits with that code anyway. A second signal exits at once. Either way the forced exit first
  // writes what must survive it (forced-exit.ts: the trace file); at the deadline a
  // collector gets one more bounded second.
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    if (controller.signal.aborted) {
      runForcedExitHandlers(signal);
      dieBy(signal);
    }
    controller.abort(new InterruptedError(signal));
    setTimeout(async () => {
      process.stderr.write(
        `rcs: stopped after ${STOP_DEADLINE_MS / 1000} s without finishing the graceful stop\n`,
      );
      runForcedExitHandlers(signal);
      await flushForcedExitHandlers(FORCED_FLUSH_MS);
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
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && !outputFailed) {
      outputFailed = error;
      // After the command returned, its last lines were still buffered: report it now.
      if (returned) reportOutputFailure(error);
    }
    if (!outputClosed.signal.aborted) outputClosed.abort(new InterruptedError('SIGPIPE'));
  };
  process.stdout.on('error', onStdoutError);
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
