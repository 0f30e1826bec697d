/**
 * A body's content codings undone, as fetch does (RFC 9110 §8.4): undici's `request` API, the
 * CLI's one HTTP stack (fetch.ts), hands the body over as it came on the wire. Codings are undone
 * last-applied first; at a coding this Node cannot decode the body is left as it is from there
 * on, as fetch leaves it.
 */
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';

/**
 * Lenient about a stream's end, as browsers and undici's fetch are: a body whose last few bytes
 * of trailer a server left out still decodes; one truly cut short fails with the socket's error.
 */
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const LENIENT_BROTLI = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

function decoderOf(coding: string): Transform | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip(LENIENT);
  if (coding === 'deflate') return zlib.createInflate(LENIENT);
  if (coding === 'br') return zlib.createBrotliDecompress(LENIENT_BROTLI);
  // Node ≥ 22.15 only; older ones leave a zstd body as it came.
  if (coding === 'zstd' && typeof zlib.createZstdDecompress === 'function') {
    return zlib.createZstdDecompress();
  }
  return undefined;
}

/** `body` with the codings of `contentEncoding` undone (or `body` itself when it names none). */
export function decodeContent(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  const decoders: Transform[] = [];
  for (const coding of codings) {
    const decoder = decoderOf(coding);
    if (!decoder) break;
    decoders.push(decoder);
  }
  // An error anywhere (the socket, a corrupt stream) destroys every later stage with it.
  let out: Readable = body;
  for (const decoder of decoders) out = pipeline(out, decoder, () => {});
  return out;
}
