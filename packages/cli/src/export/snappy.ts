/**
 * Snappy compression for the Parquet pages (issue 13), the same algorithm and the same output
 * bytes as hyparquet-writer's `snappyCompress` (itself from snappyjs, MIT, Copyright (c) 2016
 * Zhipeng Jia), but writing into one output buffer that is kept from page to page instead of a
 * new auto-growing buffer per page (1 KB, 2 KB, … up to the page size: a chain of short-lived
 * ArrayBuffers that glibc's malloc kept as process memory), and copying literals without a
 * subarray object each.
 *
 * The result is a view of that buffer: valid until the next call. hyparquet-writer appends it
 * to the file's writer straight away (writeDataPageV2, writeDictionaryPage), before compressing
 * anything else.
 */

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
const INPUT_MARGIN = 15;
const hashTables: (Uint32Array | undefined)[] = new Array(MAX_HASH_TABLE_BITS + 1);

let out = new Uint8Array(64 * 1024);
let pos = 0;

function hashOf(key: number, shift: number): number {
  return Math.imul(key, 0x1e35a7bd) >>> shift;
}

function load32(a: Uint8Array, i: number): number {
  return a[i]! + (a[i + 1]! << 8) + (a[i + 2]! << 16) + (a[i + 3]! << 24);
}

function equals32(a: Uint8Array, i: number, j: number): boolean {
  return a[i] === a[j] && a[i + 1] === a[j + 1] && a[i + 2] === a[j + 2] && a[i + 3] === a[j + 3];
}

function emitLiteral(input: Uint8Array, ip: number, len: number): void {
  if (len <= 60) {
    out[pos++] = (len - 1) << 2;
  } else {
    const value = len - 1;
    const bytes = value < 0x100 ? 1 : value < 0x10000 ? 2 : value < 0x1000000 ? 3 : 4;
    out[pos++] = (59 + bytes) << 2;
    for (let i = 0; i < bytes; i++) out[pos++] = (value >>> (i * 8)) & 0xff;
  }
  if (len < 64) {
    for (let i = 0; i < len; i++) out[pos++] = input[ip + i]!;
  } else {
    out.set(input.subarray(ip, ip + len), pos);
    pos += len;
  }
}

function emitCopyLessThan64(offset: number, len: number): void {
  if (len < 12 && offset < 2048) {
    out[pos++] = (1 + ((len - 4) << 2) + ((offset >>> 8) << 5)) & 0xff;
    out[pos++] = offset & 0xff;
  } else {
    out[pos++] = (2 + ((len - 1) << 2)) & 0xff;
    out[pos++] = offset & 0xff;
    out[pos++] = (offset >>> 8) & 0xff;
  }
}

function emitCopy(offset: number, len: number): void {
  let rest = len;
  while (rest >= 68) {
    emitCopyLessThan64(offset, 64);
    rest -= 64;
  }
  if (rest > 64) {
    emitCopyLessThan64(offset, 60);
    rest -= 60;
  }
  emitCopyLessThan64(offset, rest);
}

function compressInput(input: Uint8Array): void {
  const inputSize = input.length;
  let hashTableBits = 1;
  while (1 << hashTableBits <= inputSize && hashTableBits <= MAX_HASH_TABLE_BITS) hashTableBits++;
  hashTableBits--;
  const shift = 32 - hashTableBits;
  hashTables[hashTableBits] ??= new Uint32Array(1 << hashTableBits);
  const table = hashTables[hashTableBits]!;
  table.fill(0);

  const ipEnd = inputSize;
  let ip = 0;
  let nextEmit = 0;
  if (inputSize >= INPUT_MARGIN) {
    const ipLimit = ipEnd - INPUT_MARGIN;
    ip++;
    let nextHash = hashOf(load32(input, ip), shift);
    let more = true;
    while (more) {
      let skip = 32;
      let nextIp = ip;
      let candidate = 0;
      do {
        ip = nextIp;
        const hash = nextHash;
        const bytesBetweenHashLookups = skip >>> 5;
        skip++;
        nextIp = ip + bytesBetweenHashLookups;
        if (ip > ipLimit) {
          more = false;
          break;
        }
        nextHash = hashOf(load32(input, nextIp), shift);
        candidate = table[hash]!;
        table[hash] = ip;
      } while (ip - candidate > MAX_OFFSET || !equals32(input, ip, candidate));
      if (!more) break;

      emitLiteral(input, nextEmit, ip - nextEmit);

      do {
        const base = ip;
        let matched = 4;
        while (ip + matched < ipEnd && input[ip + matched] === input[candidate + matched]) {
          matched++;
        }
        ip += matched;
        emitCopy(base - candidate, matched);
        nextEmit = ip;
        if (ip >= ipLimit) {
          more = false;
          break;
        }
        const prevHash = hashOf(load32(input, ip - 1), shift);
        table[prevHash] = ip - 1;
        const curHash = hashOf(load32(input, ip), shift);
        candidate = table[curHash]!;
        table[curHash] = ip;
      } while (ip - candidate <= MAX_OFFSET && equals32(input, ip, candidate));
      if (!more) break;

      ip++;
      nextHash = hashOf(load32(input, ip), shift);
    }
  }
  if (nextEmit < ipEnd) emitLiteral(input, nextEmit, ipEnd - nextEmit);
}

/** Snappy-compressed bytes of `input`: a view valid until the next call. */
export function snappyCompressReused(input: Uint8Array): Uint8Array {
  // Worst case of snappy's format: 32 + n + n/6 bytes (the length varint included).
  const worst = 32 + input.length + Math.ceil(input.length / 6);
  if (out.length < worst) out = new Uint8Array(Math.max(worst, out.length * 2));
  pos = 0;
  for (let value = input.length; ; value >>>= 7) {
    if ((value & ~0x7f) === 0) {
      out[pos++] = value;
      break;
    }
    out[pos++] = (value & 0x7f) | 0x80;
  }
  compressInput(input);
  return out.subarray(0, pos);
}
