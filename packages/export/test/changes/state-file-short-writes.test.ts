/**
 * A file system that takes part of each buffer (write(2) may write fewer bytes than asked: a
 * signal, a nearly full disk, some network file systems): a snapshot is still written whole, each
 * byte at its place, and reads back.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import {
  type ExpectedState,
  readState,
  type StateEntry,
  StateWriter,
  stateFileOf,
} from '../../src/changes/state-file.js';

// At most 7 bytes a write.
vi.mock('../../src/files/safe-open.js', async (actual) =>
  (await import('../support/short-writes.js')).shortWrites(await actual(), 7),
);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-state-short-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a snapshot written a few bytes at a time reads back whole', async () => {
  const expected: ExpectedState = { resource: 'tracks', runId: 'r1', filters: {} };
  const path = join(dir, stateFileOf(expected.resource, expected.runId));
  const ids = Array.from({ length: 50 }, (_, i) => `id-${String(i).padStart(3, '0')}`);
  const hashOf = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 22);
  const writer = await StateWriter.create(path);
  for (const id of ids) await writer.add(JSON.stringify(id), hashOf(id));
  await writer.finish(expected);
  const entries: StateEntry[] = [];
  for await (const entry of readState(path, expected)) entries.push(entry);
  expect(entries.map((e) => [e.id, e.hash])).toEqual(ids.map((id) => [id, hashOf(id)]));
});
