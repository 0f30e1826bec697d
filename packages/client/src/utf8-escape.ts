/**
 * Bytes of a JSON answer that are not UTF-8 (D29). Decoding them the usual way turns
 * each into U+FFFD, which nothing downstream can tell from a real U+FFFD, so a wrong byte on the
 * wire would become a silent change. Instead, as Python's "surrogateescape" does, each byte that
 * is not part of a valid UTF-8 sequence is replaced by the JSON escape of a lone low surrogate,
 * `\udcXX` (XX its value, 80 to ff): inside a JSON string the parser yields a lone surrogate,
 * which is not valid Unicode, so a consumer that checks its text (the export's D29 check) fails
 * naming the record, the field and the bytes. Valid answers (all of them, normally) are returned
 * as they are, after one fast validating decode.
 */

import { concatBytes } from './bounded-body.js';

type IsUtf8 = (input: Uint8Array) => boolean;
interface NodeLike {
  process?: { getBuiltinModule?: (id: string) => { isUtf8?: IsUtf8 } | undefined };
}

/**
 * Node's (and Bun's) native validator, where the runtime has one: it reads the bytes without
 * decoding them, where a validating TextDecoder builds a string as large as every answer only to
 * drop it (an order of magnitude slower on a page of sessions, and garbage). Browsers and
 * workers have no such thing and use the decoder.
 */
const runtime = (globalThis as NodeLike).process;
// Stryker disable next-line OptionalChaining,StringLiteral: without the validator the decoder gives the same answer, only slower
const nativeIsUtf8 = runtime?.getBuiltinModule?.('node:buffer')?.isUtf8;

/**
 * Whether the chunks, one after the other, are UTF-8. Chunks that are each UTF-8 are UTF-8
 * together; a chunk that is not may only end inside a character that the next one completes, so
 * that case is decided by the streaming decoder.
 */
function isUtf8(chunks: Uint8Array[]): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,MethodExpression,ArrowFunction: a false here leaves the answer to the decoder, which gives the same one
  if (nativeIsUtf8 && chunks.every((chunk) => nativeIsUtf8(chunk))) return true;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for (const chunk of chunks) decoder.decode(chunk, { stream: true });
    decoder.decode();
  } catch {
    return false;
  }
  return true;
}

/** The chunks as they are when they are UTF-8, else one buffer with each bad byte escaped. */
export function escapeInvalidUtf8(chunks: Uint8Array[]): Uint8Array[] {
  return isUtf8(chunks) ? chunks : [escapeBytes(concatBytes(chunks))];
}

/** Bytes 2.. of a sequence whose lead is `lead`: the range of the second byte (RFC 3629). */
function secondRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** The length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none. */
function sequenceAt(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : 0;
  const n = length || (lead >= 0xf0 && lead <= 0xf4 ? 4 : 0);
  // (A byte that starts no sequence, n 0, comes out as 0 below.)
  if (i + n > bytes.length) return 0;
  const [low, high] = secondRange(lead);
  if (bytes[i + 1]! < low || bytes[i + 1]! > high) return 0;
  for (let k = 2; k < n; k++) {
    if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  }
  return n;
}

function escapeBytes(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceAt(bytes, i);
    if (n > 0) {
      for (let k = 0; k < n; k++) out.push(bytes[i + k]!);
      i += n;
    } else {
      // (A byte that starts no sequence is 0x80 or more: always two hex digits.)
      for (const c of `\\udc${bytes[i]!.toString(16)}`) out.push(c.charCodeAt(0));
      i++;
    }
  }
  return Uint8Array.from(out);
}
