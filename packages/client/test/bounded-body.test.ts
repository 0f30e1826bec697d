import { readBounded } from '@rcs/client/internal';
import { describe, expect, it } from 'vitest';

// readBounded: the whole body, in order, up to `limit` bytes; past it, nothing, and the
// source is told to stop sending.

/** A body in the given chunks, recording whether it was cancelled; `open` leaves it unfinished. */
function chunked(chunks: number[][], open = false) {
  const seen = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new Uint8Array(c));
      if (!open) controller.close();
    },
    cancel() {
      seen.cancelled = true;
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
