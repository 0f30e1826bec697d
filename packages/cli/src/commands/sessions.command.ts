import { examples, type RegisterCommand, TIMEOUT_HELP } from './kit.js';

/** `rcs sessions get|wait` (cli.md); the runs are in ./sessions.js. */
export const registerSessions: RegisterCommand = (root, kit) => {
  const sessions = root
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
    .option('--timeout <seconds>', TIMEOUT_HELP)
    .addHelpText(
      'after',
      examples(['rcs sessions get 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --json']),
    )
    .action(
      kit.action(async (ctx, sessionId, opts) => {
        const { runGet } = await import('./sessions.js');
        return runGet({ sessionId, ...opts }, ctx);
      }),
    );
  sessions
    .command('wait')
    .description('wait until a session is DONE, then print it (exit 5 on timeout)')
    .argument('<sessionId>', 'session id (UUID)')
    .option(
      '--timeout <seconds>',
      'give up after this long, exit 5 (default 600); no request runs past it either',
    )
    .addHelpText(
      'after',
      examples(['rcs sessions wait 3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b --timeout 120']),
    )
    .action(
      kit.action(async (ctx, sessionId, opts) => {
        const { runWait } = await import('./sessions.js');
        return runWait({ sessionId, ...opts }, ctx);
      }),
    );
};
