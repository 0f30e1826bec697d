/**
 * What is read of a body: a `ReadableStream` of bytes, the platform's or another copy's (the
 * undici a caller's own fetch may use: its streams differ from the platform's in type only).
 */
export interface ByteStream {
  getReader(): Pick<ReadableStreamDefaultReader<Uint8Array>, 'read' | 'cancel'>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * Reads a body whole, but never more than `limit` bytes: past it, the stream is cancelled and
 * nothing is returned, so a hostile or broken peer cannot make us hold more. Used by
 * the client for answers (maxResponseBytes) and by the mock for requests (D2's 1 MiB, 413). @internal
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks = await readBoundedChunks(body, limit);
  return chunks && concatBytes(chunks);
}

/** The chunks one after the other, in one new buffer. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * The same reading as `readBounded`, but the chunks as they came, not copied into one buffer:
 * the client's transport hands them on in a new stream, so that each answer is copied once (by
 * the parser) instead of three times (one buffer, then the copy a `Response` makes of a buffer
 * body, then the parser's).
 *
 * `signal` ends the reading with its reason, and cancels the body, whatever the stream's source
 * does with its own abort: the transport's deadline then holds for any fetch, even one whose
 * link from the request's signal to the body was lost (a `Request` collected as garbage while
 * its body stalls).
 */
export async function readBoundedChunks(
  body: ByteStream | null,
  limit: number,
  signal: AbortSignal = new AbortController().signal,
): Promise<Uint8Array[] | undefined> {
  if (!body) return [];
  signal.throwIfAborted();
  const reader = body.getReader();
  // A cancel settles a pending read at once (as done), so the loop below sees the abort.
  const stop = () => reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener('abort', stop);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        // Not awaited: a source that never settles its cancel (a hung peer) must not hold us.
        reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
    return chunks;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
