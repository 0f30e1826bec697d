/**
 * Where hyparquet-writer's `ParquetWriter` puts its bytes: a `ByteWriter` (the library's public
 * class) that hands them on in chunks of about 1 MiB instead of growing one buffer to a whole
 * row group, as the library's own `fileWriter` does (it overrides `ensure` the same way). The
 * writer keeps counting `offset` across chunks, so the file's offsets stay right.
 */
import { ByteWriter } from 'hyparquet-writer';

const CHUNK = 1024 * 1024;

export class ChunkSink extends ByteWriter {
  #chunks: Uint8Array[] = [];

  constructor() {
    super(64 * 1024);
  }

  /** Before the buffer would grow past a chunk, the bytes so far leave with their buffer. */
  override ensure(size: number): void {
    if (this.index + size > this.buffer.byteLength && this.index >= CHUNK / 2) {
      this.flush();
      if (size > this.buffer.byteLength) this.#renew(size);
      return;
    }
    super.ensure(size);
  }

  /** Called by ParquetWriter after each row group (and by `take`). */
  flush(): void {
    if (this.index === 0) return;
    this.#chunks.push(new Uint8Array(this.buffer, 0, this.index));
    this.#renew(CHUNK);
  }

  /** The bytes written since the last call, in one array. */
  take(): Uint8Array {
    this.flush();
    const chunks = this.#chunks;
    this.#chunks = [];
    if (chunks.length === 1) return chunks[0]!;
    return Buffer.concat(chunks);
  }

  #renew(size: number): void {
    this.buffer = new ArrayBuffer(Math.max(CHUNK, size));
    this.view = new DataView(this.buffer);
    this.index = 0;
  }
}
