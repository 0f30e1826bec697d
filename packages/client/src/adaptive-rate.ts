import { sleep } from './backoff.js';

/**
 * Adaptive request pacing shared by every request of one client (issue 11): AIMD on the request
 * *rate*, as TCP does on its window and the AWS SDKs' "adaptive" retry mode does on a token rate.
 *
 * - Until the service first answers 429 nothing is paced, so an unlimited service costs nothing.
 * - On a 429 (at most once per second, so that a burst of 429s from requests already in flight
 *   counts once) the rate becomes `DECREASE` × the rate the service accepted in the last second,
 *   and every request waits until the `Retry-After` the service asked for (D2) has passed.
 * - Every second of good answers adds `INCREASE` requests per second, probing for more.
 *
 * Requests are spaced evenly at the current rate, so a limit counted in fixed one-second windows
 * (D2: "N requests per second") is met without bursts at the window's start.
 */
export interface RatePacer {
  /** Waits until this request may be sent. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Reports an answer: its status and, for a 429, the wait the service asked for (ms). */
  onAnswer(status: number, retryAfterMs: number | undefined): void;
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
  /** Times of the good answers of the last second, oldest first. */
  const accepted: number[] = [];

  function forget(t: number): void {
    while (accepted.length > 0 && (accepted[0] as number) <= t - WINDOW_MS) accepted.shift();
  }

  return {
    get rate() {
      return rate;
    },
    async acquire(signal) {
      for (;;) {
        const t = now();
        // Reserve the next evenly spaced slot, never inside the service's Retry-After pause.
        let slot = Math.max(t, pausedUntil);
        if (rate !== undefined) {
          slot = Math.max(slot, nextSlot);
          nextSlot = slot + 1000 / rate;
        }
        if (slot <= t) return;
        await sleep(slot - t, signal);
        // A 429 meanwhile may have pushed the pause further: then reserve again.
        if (now() >= pausedUntil) return;
      }
    },
    onAnswer(status, retryAfterMs) {
      const t = now();
      forget(t);
      if (status === 429) {
        if (retryAfterMs !== undefined) pausedUntil = Math.max(pausedUntil, t + retryAfterMs);
        // With no good answer yet (another client spent the budget) there is nothing to measure:
        // only the pause applies. With none in the last second (a pause), the current rate is
        // what there is to cut.
        const measured = accepted.length > 0 ? accepted.length : rate;
        if (measured !== undefined && t - lastCut >= WINDOW_MS) {
          lastCut = t;
          rate = Math.max(MIN_RATE, DECREASE * Math.min(measured, rate ?? measured));
          lastGrowth = t;
        }
        return;
      }
      accepted.push(t);
      if (rate !== undefined && t > lastGrowth) {
        rate += (INCREASE * (t - lastGrowth)) / 1000;
        lastGrowth = t;
      }
    },
  };
}
