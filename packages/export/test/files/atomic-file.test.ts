import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicFile, writeFileAtomically } from '../../src/files/atomic-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('AtomicFile', () => {
  it('is invisible under its name until committed, then 0600 with the written bytes', async () => {
    const target = join(dir, 'users.jsonl');
    await writeFile(target, 'old\n');
    const file = await AtomicFile.create(target);
    await file.write('{"id":"1"}\n');
    await file.write('{"id":"ü"}\n');
    expect(await readFile(target, 'utf8')).toBe('old\n');
    const written = await file.finish();
    expect(await readFile(target, 'utf8')).toBe('old\n');
    await file.commit();
    const text = '{"id":"1"}\n{"id":"ü"}\n';
    expect(await readFile(target, 'utf8')).toBe(text);
    expect(written.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(written.bytes).toBe(Buffer.byteLength(text));
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['users.jsonl']);
  });

  it('discard removes the partial file and leaves the previous file untouched', async () => {
    const target = join(dir, 'users.csv');
    await writeFile(target, 'previous');
    const file = await AtomicFile.create(target);
    await file.write('half a file');
    await file.discard();
    expect(await readFile(target, 'utf8')).toBe('previous');
    expect(await readdir(dir)).toEqual(['users.csv']);
  });

  it('refuses to commit before the file is finished and verified', async () => {
    const file = await AtomicFile.create(join(dir, 'x.jsonl'));
    await expect(file.commit()).rejects.toThrow(/commit before finish/);
    await file.discard();
  });

  it('detects a file changed on disk behind its back', async () => {
    const file = await AtomicFile.create(join(dir, 'x.jsonl'));
    await file.write('abc');
    await writeFile(file.partial, 'abcd');
    // (A second writer on the same path: the size on disk no longer matches.)
    await expect(file.finish()).rejects.toThrow(/differs from what was written/);
    await file.discard();
  });

  it('writeFileAtomically replaces a manifest in one step', async () => {
    const target = join(dir, 'manifest.json');
    await writeFile(target, '{"old":true}');
    await writeFileAtomically(target, '{"new":true}\n');
    expect(await readFile(target, 'utf8')).toBe('{"new":true}\n');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['manifest.json']);
  });
});
