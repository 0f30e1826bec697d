import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

describe('Ledger write-ahead (issue 11)', () => {
  const subject = { file: 'a.srt', sha256: 'ab'.repeat(32), rep: 'email:r@x.io' };

  it('an intent reads back as unknown until its outcome is written over it, in place', () => {
    const p = path();
    const l = new Ledger(p).load();
    const intent = l.intend(subject);
    expect(new Ledger(p).load().find(subject.sha256, subject.rep)?.status).toBe('unknown');
    const sizeBefore = readFileSync(p).length;
    l.settle(intent, { status: 'created', sessionId: '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b' });
    expect(readFileSync(p).length).toBe(sizeBefore);
    const lines = readFileSync(p, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...subject, status: 'created' });
    expect(new Ledger(p).load().find(subject.sha256, subject.rep)?.sessionId).toBe(
      '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b',
    );
  });

  it('a long error is shortened to fit, still one line', () => {
    const p = path();
    const l = new Ledger(p).load();
    l.settle(l.intend(subject), { status: 'unknown', error: `é${'x'.repeat(600)}` });
    const lines = readFileSync(p, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry.status).toBe('unknown');
    expect(entry.error.startsWith('éxxx')).toBe(true);
    expect(entry.error.endsWith('…')).toBe(true);
  });

  it('when the room is no longer where it was (another writer), the outcome is appended', () => {
    const p = path();
    const l = new Ledger(p).load();
    const intent = l.intend(subject);
    writeFileSync(p, `\n${readFileSync(p, 'utf8')}`); // everything moved by one byte
    l.settle(intent, { status: 'failed', error: 'boom' });
    const lines = readFileSync(p, 'utf8').trim().split('\n');
    expect(lines.map((x) => JSON.parse(x).status)).toEqual(['sending', 'failed']);
    expect(new Ledger(p).load().find(subject.sha256, subject.rep)?.status).toBe('failed');
  });

  it('runs every line through the redactor before it is written', () => {
    const p = path();
    const l = new Ledger(p, (t) => t.split('sk_secret').join('[REDACTED]')).load();
    l.settle(l.intend({ ...subject, file: 'sk_secret.srt' }), {
      status: 'failed',
      error: 'GET https://x/?k=sk_secret failed',
    });
    expect(readFileSync(p, 'utf8')).not.toContain('sk_secret');
  });
});
