import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, Ledger, repKey } from '../../src/ledger.js';

const path = () => join(mkdtempSync(join(tmpdir(), 'ledger-')), '.rcs-ledger.jsonl');

describe('Ledger', () => {
  it('records as JSON lines and finds the latest outcome per text and rep after a reload', () => {
    const p = path();
    const rep = repKey({ email: 'Rep@Acme.com ' });
    expect(rep).toBe('email:rep@acme.com'); // D6
    const sha = contentHash('hello transcript');
    const first = new Ledger(p).load();
    first.record({ file: 'a.srt', sha256: sha, rep, status: 'failed', error: 'x' });
    first.record({ file: 'a.srt', sha256: sha, rep, status: 'created', sessionId: 's1' });
    const again = new Ledger(p).load();
    expect(again.find(sha, rep)).toMatchObject({ status: 'created', sessionId: 's1' });
    expect(again.find(sha, repKey({ email: 'other@acme.com' }))).toBeUndefined();
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('survives a line cut by a crash: reports it, and the next record starts on a new line', () => {
    const p = path();
    const l = new Ledger(p).load();
    l.record({
      file: 'a.srt',
      sha256: 'aa',
      rep: 'email:r@x.io',
      status: 'created',
      sessionId: 's1',
    });
    appendFileSync(p, '{"file":"b.srt","sha2'); // torn write, no newline
    const reloaded = new Ledger(p).load();
    expect(reloaded.unreadableLines).toEqual([2]);
    reloaded.record({ file: 'c.srt', sha256: 'cc', rep: 'email:r@x.io', status: 'unknown' });
    const final = new Ledger(p).load();
    expect(final.find('cc', 'email:r@x.io')?.status).toBe('unknown');
    expect(final.find('aa', 'email:r@x.io')?.status).toBe('created');
    expect(final.unreadableLines).toEqual([2]);
  });

  it('the hash is of the content, so a renamed file is still recognised', () => {
    expect(contentHash('same')).toBe(contentHash('same'));
    expect(contentHash('same')).not.toBe(contentHash('same '));
  });

  it('refuses up front when the ledger cannot be written (a directory in its place)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    expect(() => new Ledger(dir).load().assertWritable()).toThrow(
      /EISDIR|EACCES|illegal operation/,
    );
  });
});
