/** Backoff settings; every one has a default and can be overridden per client. */
export interface BackoffOptions {
  /** First retry waits up to this long (full jitter). Default 500 ms. */
  initialDelayMs?: number;
  /** No computed wait exceeds this. Default 8 s. */
  maxDelayMs?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the error is returned. No pause of the
   * client (a retry, the shared rate pacer, a poll) is longer. Default 60 s.
   */
  maxRetryAfterMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The one backoff formula: step `n` is `min(maxMs, initialMs·factor^n)`, and the wait a uniform
 * share of it from `floor` (0: "full jitter", which spreads the retries of many clients after a
 * shared failure) to the whole step. Polling a session uses `floor` ½ ("equal jitter") and a
 * gentler factor: a poll is expected, not a failure, and must never become a tight loop.
 */
export function backoffDelay(n: number, initialMs: number, maxMs: number, factor = 2, floor = 0) {
  const step = Math.min(maxMs, initialMs * factor ** n);
  return Math.round(step * (floor + Math.random() * (1 - floor)));
}

/** The longest a Node timer holds (2^31-1 ms); a larger delay would fire at once, with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Waits `ms` (at most the longest timer, 24.8 days), or until `signal` aborts (rejecting with
 * its reason): the one abortable pause of every package. setTimeout-based, so fake timers drive
 * it in tests.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
