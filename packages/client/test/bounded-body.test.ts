import { getEventListeners } from 'node:events';
import { readBounded } from '@rcs/client/internal';
import { describe, expect, it } from 'vitest';
import { readBoundedChunks } from '../src/bounded-body.js';

// readBounded: the whole body, in order, up to `limit` bytes; past it, nothing, and the
// source is told to stop sending.

/** A body in the given chunks, recording whether it was cancelled; `open` leaves it unfinished. */
function chunked(chunks: number[][], open = false) {
  const seen: { cancelled: boolean; reason?: unknown } = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new Uint8Array(c));
      if (!open) controller.close();
    },
    cancel(reason) {
      seen.cancelled = true;
      seen.reason = reason;
    },
  });
  return { body, seen };
}

describe('readBounded', () => {
  it('joins several chunks in order, each at its place', async () => {
    const { body, seen } = chunked([[1, 2], [3], [4, 5, 6]]);
    const bytes = await readBounded(body, 6);
    expect(bytes && [...bytes]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.cancelled).toBe(false);
  });

  it('a body one byte over the limit is cancelled at the source and nothing is returned', async () => {
    const { body, seen } = chunked(
      [
        [1, 2, 3],
        [4, 5, 6, 7],
      ],
      true,
    );
    expect(await readBounded(body, 6)).toBeUndefined();
    expect(seen.cancelled).toBe(true);
  });

  it('no body reads as empty', async () => {
    const bytes = await readBounded(null, 10);
    expect(bytes?.byteLength).toBe(0);
  });
});

// The transport reads each answer under its attempt's signal (timeout, deadline, the caller's):
// the signal ends the reading whatever the body's source does with its own abort.
describe('readBoundedChunks under a signal', () => {
  it('an abort ends a read waiting on a stalled body, with its reason, and cancels the source with it', async () => {
    const { body, seen } = chunked([[1, 2]], true);
    const stop = new AbortController();
    const reading = readBoundedChunks(body, 10, stop.signal);
    // The one chunk there is has been read: the reading now waits on a body that sends nothing.
    await new Promise((r) => setImmediate(r));
    const reason = new Error('the attempt timed out');
    stop.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(seen).toEqual({ cancelled: true, reason });
  });

  it('a signal aborted before the reading starts ends it at once, even on a body that sends nothing', async () => {
    const reason = new Error('the deadline has passed');
    const { body } = chunked([], true);
    await expect(readBoundedChunks(body, 10, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it('leaves no listener on the signal, however the reading ends (one signal may serve many reads)', async () => {
    const signal = new AbortController().signal;
    expect(await readBoundedChunks(chunked([[1], [2]]).body, 10, signal)).toHaveLength(2);
    expect(await readBoundedChunks(chunked([[1, 2, 3]], true).body, 2, signal)).toBeUndefined();
    const broken = new ReadableStream({
      pull() {
        throw new Error('cut');
      },
    });
    await expect(readBoundedChunks(broken, 10, signal)).rejects.toThrow('cut');
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
