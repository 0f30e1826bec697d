/**
 * One page's answer as the service sent it, parsed only when its reader gets to it.
 *
 * A pager reads pages ahead of its consumer. Parsed on arrival, a page's records live until their
 * turn, outlast V8's young generation and are promoted: the old generation then grows with
 * garbage until a full collection: a loop over 1M records peaked at twice the RSS of the same
 * pages parsed in turn. Held as bytes (outside the JavaScript heap) and parsed in turn, records
 * die young (bench/export/README.md).
 */
export class PageBody<P> {
  /** The body's bytes: JSON, with bytes that are not UTF-8 already escaped as `\udcXX` (D29). */
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /**
   * The body parsed as `Response.json()` would (a BOM dropped), unchecked: `P` is what the
   * contract promises, which the caller's shape check confirms. Undefined when the body is empty,
   * as openapi-fetch reads an empty JSON answer.
   */
  json(): P | undefined {
    if (this.bytes.byteLength === 0) return undefined;
    return JSON.parse(decoder.decode(this.bytes));
  }
}

const decoder = new TextDecoder();
