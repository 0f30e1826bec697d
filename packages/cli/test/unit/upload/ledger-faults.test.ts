/**
 * What the disk answers only on a bad day, injected at the system call (every call passes through
 * to the real one unless a test says otherwise): a flush that fails (EIO), and writes the kernel
 * takes in parts (a pipe-like or nearly full file system).
 */
import type * as fs from 'node:fs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contentHash, Ledger } from '../../../src/upload/ledger.js';
import { serviceIdentity } from '../../../src/upload/service.js';

/** The injections of the running test, for descriptors of `path` only. */
const faults = vi.hoisted(() => ({
  path: undefined as string | undefined,
  fsync: false,
  /** The most bytes one write takes. */
  writeCap: undefined as number | undefined,
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const ours = (fd: number) =>
    faults.path !== undefined && real.readlinkSync(`/proc/self/fd/${fd}`) === faults.path;
  const fsyncSync: typeof real.fsyncSync = (fd) => {
    if (faults.fsync && ours(fd)) {
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    }
    real.fsyncSync(fd);
  };
  const writeSync = ((
    fd: number,
    buffer: Buffer,
    offset: number,
    length?: number,
    position?: number,
  ) => {
    if (faults.writeCap === undefined || !ours(fd)) {
      return real.writeSync(fd, buffer, offset, length, position);
    }
    const rest = length ?? buffer.length - offset;
    return real.writeSync(fd, buffer, offset, Math.min(rest, faults.writeCap), position);
  }) as typeof fs.writeSync;
  return { ...real, fsyncSync, writeSync };
});

const mock = serviceIdentity('http://127.0.0.1:4010', { apiKey: 'demo-key-1' });
const rep = 'email:r@x.io';
const subject = { file: 'a.srt', sha256: contentHash('a'), rep };
const sessionId = '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b';
const ledgerPath = () => {
  faults.path = join(mkdtempSync(join(tmpdir(), 'ledger-faults-')), '.rcs-ledger.jsonl');
  return faults.path;
};

afterEach(() => {
  faults.path = undefined;
  faults.fsync = false;
  faults.writeCap = undefined;
});

describe('a flush that fails', () => {
  it('fails the intent: the upload is not sent before its line is on disk', () => {
    const l = new Ledger(ledgerPath(), mock).load();
    faults.fsync = true;
    expect(() => l.intend(subject)).toThrow(/EIO/);
  });

  it('fails the outcome written in place: it is not taken as recorded', () => {
    const l = new Ledger(ledgerPath(), mock).load();
    const intent = l.intend(subject);
    faults.fsync = true;
    expect(() => l.settle(intent, { status: 'created', sessionId })).toThrow(/EIO/);
  });
});

describe('writes taken in parts', () => {
  it('each line and each outcome still lands whole, where it belongs', () => {
    const p = ledgerPath();
    faults.writeCap = 7;
    const l = new Ledger(p, mock).load();
    l.settle(l.intend(subject), { status: 'created', sessionId });
    l.record({ ...subject, sha256: contentHash('b'), status: 'failed', error: 'boom' });
    faults.writeCap = undefined;
    const lines = readFileSync(p, 'utf8').split('\n');
    expect(lines.map((x) => (x === '' ? '' : JSON.parse(x).status))).toEqual([
      'created',
      'failed',
      '',
    ]);
    expect(new Ledger(p, mock).load().find(subject.sha256, rep)).toMatchObject({
      kind: 'uploaded',
      record: { sessionId, line: 1 },
    });
  });
});
