import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AtomicFile,
  assertReplaceable,
  syncDirectory,
  writeFileAtomically,
} from '../../src/files/atomic-file.js';
import { openFilesUnder } from '../support/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A file for `target` holding `text`, finished (verified), not yet committed. */
async function finished(target: string, text: string): Promise<AtomicFile> {
  const file = await AtomicFile.create(target);
  await file.write(text);
  await file.finish();
  return file;
}

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

const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** No descriptor of this process left open on a file under `path` (where /proc tells). */
async function noneOpenUnder(path: string): Promise<void> {
  const open = await openFilesUnder(path);
  if (open !== undefined) expect(open).toEqual([]);
}

/** `chunks` written, finished and committed to `target`: what finish returned. */
async function written(target: string, chunks: (string | Uint8Array)[]) {
  const file = await AtomicFile.create(target);
  for (const chunk of chunks) await file.write(chunk);
  const result = await file.finish();
  await noneOpenUnder(dir);
  await file.commit();
  return result;
}

describe('AtomicFile: the bytes written, exactly', () => {
  it('empty writes change nothing; a file of none is empty, with the hash of nothing', async () => {
    const target = join(dir, 'a.jsonl');
    expect(await written(target, ['', new Uint8Array(0)])).toEqual({
      path: target,
      bytes: 0,
      sha256: sha256(''),
    });
    expect(await readFile(target, 'utf8')).toBe('');
    expect(await written(target, ['a', '', new Uint8Array(0), 'b'])).toMatchObject({
      bytes: 2,
      sha256: sha256('ab'),
    });
    expect(await readFile(target, 'utf8')).toBe('ab');
  });

  it('strings larger than any buffer so far, of multi-byte characters, and byte chunks between', async () => {
    // 'ü€😀' is 2 + 3 + 4 bytes in UTF-8: a page of 64 KiB and more cannot be cut by characters.
    const page = (n: number) => '{"name":"ü€😀"}\n'.repeat(n);
    const chunks = [page(1), page(9000), page(20_000), Buffer.from('raw\n'), page(60_000), page(2)];
    const target = join(dir, 'users.jsonl');
    const result = await written(target, chunks);
    const expected = Buffer.concat(chunks.map((c) => Buffer.from(c)));
    expect(expected.length).toBeGreaterThan(2 * 64 * 1024);
    expect(result).toMatchObject({ bytes: expected.length, sha256: sha256(expected) });
    expect((await readFile(target)).equals(expected)).toBe(true);
  });

  it('one string larger than twice the buffer, then smaller ones into the same buffer', async () => {
    const big = 'ü'.repeat(200_000);
    const target = join(dir, 'transcripts.jsonl');
    const result = await written(target, [big, 'x', 'é'.repeat(10)]);
    const expected = `${big}x${'é'.repeat(10)}`;
    expect(result).toMatchObject({ bytes: Buffer.byteLength(expected), sha256: sha256(expected) });
    expect(await readFile(target, 'utf8')).toBe(expected);
  });
});

describe('AtomicFile: each step once, in order', () => {
  it('a write after finish or discard, or while finishing, throws "write after end"', async () => {
    const target = join(dir, 'x.jsonl');
    const file = await AtomicFile.create(target);
    await file.write('a');
    const finishing = file.finish();
    await expect(file.write('b')).rejects.toThrow(`${target}: write after end`);
    await finishing;
    await expect(file.write('c')).rejects.toThrow(`${target}: write after end`);
    await file.commit();
    expect(await readFile(target, 'utf8')).toBe('a');
    const discarded = await AtomicFile.create(target);
    await discarded.discard();
    await expect(discarded.write('d')).rejects.toThrow(`${target}: write after end`);
  });

  it('finish twice, or after discard, throws "finished twice"', async () => {
    const target = join(dir, 'x.jsonl');
    const file = await AtomicFile.create(target);
    const finishing = file.finish();
    await expect(file.finish()).rejects.toThrow(`${target}: finished twice`);
    await finishing;
    await expect(file.finish()).rejects.toThrow(`${target}: finished twice`);
    await file.discard();
    const discarded = await AtomicFile.create(target);
    await discarded.discard();
    await expect(discarded.finish()).rejects.toThrow(`${target}: finished twice`);
  });

  it('commit twice, or after discard, throws and leaves the target as it was', async () => {
    const target = join(dir, 'x.jsonl');
    const file = await finished(target, 'first');
    await file.commit();
    await expect(file.commit()).rejects.toThrow(`${target}: commit before finish`);
    expect(await readFile(target, 'utf8')).toBe('first');
    const discarded = await finished(target, 'second');
    await discarded.discard();
    await expect(discarded.commit()).rejects.toThrow(`${target}: commit before finish`);
    expect(await readFile(target, 'utf8')).toBe('first');
    expect(await readdir(dir)).toEqual(['x.jsonl']);
  });

  it('discard after commit, or a second discard, removes nothing: not even a file now at the partial name', async () => {
    const target = join(dir, 'x.jsonl');
    const committed = await finished(target, 'kept');
    await committed.commit();
    await writeFile(committed.partial, 'not ours');
    await committed.discard();
    expect(await readFile(target, 'utf8')).toBe('kept');
    expect(await readFile(committed.partial, 'utf8')).toBe('not ours');
    const discarded = await AtomicFile.create(join(dir, 'y.jsonl'));
    await discarded.discard();
    await writeFile(discarded.partial, 'not ours either');
    await discarded.discard();
    expect(await readFile(discarded.partial, 'utf8')).toBe('not ours either');
    await noneOpenUnder(dir);
  });

  it('writeFileAtomically that cannot rename (a directory at the target) leaves no partial file', async () => {
    const target = join(dir, 'manifest.json');
    await mkdir(target);
    await expect(writeFileAtomically(target, '{}\n')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await readdir(dir)).toEqual(['manifest.json']);
    expect(await readdir(target)).toEqual([]);
  });
});

describe('before and after the renames', () => {
  it('assertReplaceable refuses a directory at a path, and takes a file, a link, nothing', async () => {
    await writeFile(join(dir, 'users.jsonl'), '');
    await mkdir(join(dir, 'teams.jsonl'));
    await symlink(join(dir, 'teams.jsonl'), join(dir, 'calls.jsonl'));
    await expect(
      assertReplaceable([
        join(dir, 'users.jsonl'),
        join(dir, 'missing.jsonl'),
        undefined,
        join(dir, 'calls.jsonl'),
      ]),
    ).resolves.toBeUndefined();
    await expect(
      assertReplaceable([join(dir, 'users.jsonl'), join(dir, 'teams.jsonl')]),
    ).rejects.toThrow(
      `${join(dir, 'teams.jsonl')} is a directory, which a file of the export cannot replace; remove it, or choose another directory, and run again`,
    );
  });

  it('syncDirectory leaves nothing open, and a directory that is not there is no error', async () => {
    await mkdir(join(dir, 'out'));
    await syncDirectory(join(dir, 'out'));
    await noneOpenUnder(dir);
    await expect(syncDirectory(join(dir, 'missing'))).resolves.toBeUndefined();
  });
});
