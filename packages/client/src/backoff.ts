/** Backoff settings; every one has a default and can be overridden per client. */
export interface BackoffOptions {
  /** First retry waits up to this long (full jitter). Default 500 ms. */
  initialDelayMs?: number;
  /** No computed wait exceeds this. Default 8 s. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is returned. Default 60 s. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = {
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * "Full jitter" exponential backoff: a uniform wait in [0, min(cap, base·2^retry)). Spreads the
 * retries of many clients instead of synchronising them after a shared failure.
 */
export function fullJitterDelay(
  retry: number,
  opts: Pick<Required<BackoffOptions>, 'initialDelayMs' | 'maxDelayMs'>,
): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.initialDelayMs * 2 ** retry);
  return Math.floor(Math.random() * ceiling);
}

/** setTimeout-based (so fake timers drive it in tests) and abortable. */
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
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
