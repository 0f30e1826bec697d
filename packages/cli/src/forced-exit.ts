/**
 * Last words before a forced exit (cli.md "Unattended runs"): the graceful stop's deadline, or a
 * second SIGINT/SIGTERM, ends the process by its signal while work is still pending
 * (program.ts). What must be on disk even then registers here: the trace file (cli.md:
 * `--trace-file` is "flushed on every exit path, signals included").
 */
export interface ForcedExitHandler {
  /** Runs synchronously just before the process ends: nothing asynchronous completes after. */
  now(signal: 'SIGINT' | 'SIGTERM'): void;
  /**
   * At the graceful deadline only (a second signal means "at once"): one bounded asynchronous
   * attempt, such as sending the spans to a collector.
   */
  flush?(): Promise<void>;
}

const handlers = new Set<ForcedExitHandler>();

/** Registers `handler` until the returned function is called (the run ended on its own). */
export function onForcedExit(handler: ForcedExitHandler): () => void {
  handlers.add(handler);
  return () => {
    handlers.delete(handler);
  };
}

/** Every handler's synchronous part; one that throws does not keep the others from running. */
export function runForcedExitHandlers(signal: 'SIGINT' | 'SIGTERM'): void {
  for (const handler of handlers) {
    try {
      handler.now(signal);
    } catch {
      // The process is ending by force: nothing is left to report the failure to but stderr,
      // and the handler's own output is what failed.
    }
  }
}

/**
 * Every handler's flush, for at most `ms`: the timer is a referenced one, so the process stays
 * up (and ends by its signal afterwards) even when nothing else is pending.
 */
export async function flushForcedExitHandlers(ms: number): Promise<void> {
  const flushes = [...handlers].flatMap((h) => (h.flush ? [h.flush().catch(() => {})] : []));
  if (flushes.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(flushes),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
