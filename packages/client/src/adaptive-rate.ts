import { sleep } from './backoff.js';

/**
 * Adaptive request pacing shared by every request of one client: AIMD on the request
 * *rate*, as TCP does on its window and the AWS SDKs' "adaptive" retry mode does on a token rate.
 *
 * - Until the service first answers 429 nothing is paced, so an unlimited service costs nothing.
 * - On a 429 (at most once per second, so that a burst of 429s from requests already in flight
 *   counts once) the rate becomes `DECREASE` × the rate the service accepted in the last second,
 *   and every request waits until the `Retry-After` the service asked for (D2, capped by the
 *   transport) has passed. "Accepted in the last second" counts good answers by the time their
 *   request was *sent* (the service's windows count arrivals), in the second before the refused
 *   request was sent. Requests sent in that second may still be in flight (slow pages), so the
 *   measure is taken again once the pause is over and the rate raised to it: the first measure
 *   alone can come out far below the limit (bench/cli, rate-limit.mjs).
 * - Every second of good answers adds `INCREASE` requests per second, probing for more.
 *
 * Requests are spaced evenly at the current rate, so a limit counted in fixed one-second windows
 * (D2: "N requests per second") is met without bursts at the window's start.
 */
export interface RatePacer {
  /**
   * Waits until this request may be sent; resolves with the time it is let go and how long the
   * pacer held it (0 when no wait was due: no 429 yet, or a slot free now). The hold is the
   * pacer's own wait, never the caller's clock: a process the system did not run for a few
   * milliseconds between two reads of the clock was not held back by a rate limit.
   */
  acquire(signal?: AbortSignal): Promise<{ sentAt: number; heldMs: number }>;
  /**
   * Reports an answer: its status, for a 429 the wait the service asked for (ms), and when its
   * request was sent (the time `acquire` let it go; default: now).
   */
  onAnswer(status: number, retryAfterMs: number | undefined, sentAt?: number): void;
  /** The current rate in requests per second, or undefined while unpaced. */
  readonly rate: number | undefined;
}

const DECREASE = 0.95;
/** Requests per second added per second of good answers. */
const INCREASE = 0.05;
const MIN_RATE = 0.5;
const WINDOW_MS = 1_000;

export function createRatePacer(now: () => number = Date.now): RatePacer {
  let rate: number | undefined;
  let nextSlot = 0;
  let pausedUntil = 0;
  let lastCut = Number.NEGATIVE_INFINITY;
  let lastGrowth = 0;
  /** Send times of the good answers of the last few seconds (in answer order). */
  const accepted: number[] = [];
  /** A cut to measure again once its pause is over: the refused request's send time. */
  let recheck: { sentAt: number; at: number; ceiling: number | undefined } | undefined;

  function forget(t: number): void {
    // Kept longer than a window: a recheck looks at the window before a request sent earlier.
    // (An empty list reads as just now: nothing to forget.)
    while ((accepted[0] ?? t) <= t - 4 * WINDOW_MS) accepted.shift();
  }

  /** Good answers whose requests were sent in the second up to `end`. */
  function acceptedBefore(end: number): number {
    let n = 0;
    for (const sent of accepted) if (sent > end - WINDOW_MS && sent <= end) n++;
    return n;
  }

  function settle(t: number): void {
    if (!recheck || t < recheck.at) return;
    const measured = DECREASE * acceptedBefore(recheck.sentAt);
    const ceiling = recheck.ceiling ?? Number.POSITIVE_INFINITY;
    // A recheck is set only by a cut, which set the rate.
    rate = Math.max(rate as number, Math.min(measured, ceiling));
    recheck = undefined;
  }

  return {
    get rate() {
      return rate;
    },
    async acquire(signal) {
      // One reading of the clock for the call: let go at once, the hold is exactly 0.
      const asked = now();
      let t = asked;
      for (;;) {
        settle(t);
        // Reserve the next evenly spaced slot, never inside the service's Retry-After pause.
        let slot = Math.max(t, pausedUntil);
        if (rate !== undefined) {
          slot = Math.max(slot, nextSlot);
          nextSlot = slot + 1000 / rate;
        }
        if (slot <= t) return { sentAt: t, heldMs: t - asked };
        await sleep(slot - t, signal);
        // A 429 meanwhile may have pushed the pause further: then reserve again.
        const woke = now();
        if (woke >= pausedUntil) {
          settle(woke);
          return { sentAt: woke, heldMs: woke - asked };
        }
        t = woke;
      }
    },
    onAnswer(status, retryAfterMs, sentAt = now()) {
      const t = now();
      forget(t);
      settle(t);
      if (status === 429) {
        if (retryAfterMs !== undefined) pausedUntil = Math.max(pausedUntil, t + retryAfterMs);
        // With no good answer yet (another client spent the budget) there is nothing to measure:
        // only the pause applies. With none in the last second (a pause), the current rate is
        // what there is to cut.
        const inWindow = acceptedBefore(sentAt);
        const measured = inWindow > 0 ? inWindow : rate;
        if (measured !== undefined && t - lastCut >= WINDOW_MS) {
          const ceiling = rate;
          lastCut = t;
          rate = Math.max(MIN_RATE, DECREASE * Math.min(measured, rate ?? measured));
          lastGrowth = t;
          // Answers still in flight for that second arrive during the pause: measure again after.
          recheck = { sentAt, at: Math.max(t, pausedUntil), ceiling };
        }
        return;
      }
      accepted.push(sentAt);
      // Stryker disable next-line EqualityOperator: at t === lastGrowth the growth is 0, so `>=` adds nothing
      if (rate !== undefined && t > lastGrowth) {
        rate += (INCREASE * (t - lastGrowth)) / 1000;
        lastGrowth = t;
      }
    },
  };
}
