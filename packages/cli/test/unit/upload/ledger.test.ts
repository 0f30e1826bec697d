import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, Ledger, repKey } from '../../../src/upload/ledger.js';
import { serviceIdentity } from '../../../src/upload/service.js';

const path = () => join(mkdtempSync(join(tmpdir(), 'ledger-')), '.rcs-ledger.jsonl');
const mock = serviceIdentity('http://127.0.0.1:4010', { apiKey: 'demo-key-1' });
/** The status a re-run acts on: `created` (skip), `unknown` (look it up), or undefined (send). */
const statusOf = (l: Ledger, sha: string, rep: string) => {
  const m = l.find(sha, rep);
  return m === undefined ? undefined : m.kind === 'uploaded' ? 'created' : m.kind;
};

describe('Ledger', () => {
  it('records as JSON lines and finds the latest outcome per text and rep after a reload', () => {
    const p = path();
    const rep = repKey({ email: 'Rep@Acme.com ' });
    expect(rep).toBe('email:rep@acme.com'); // D6
    const sha = contentHash('hello transcript');
    const first = new Ledger(p, mock).load();
    first.record({ file: 'a.srt', sha256: sha, rep, status: 'failed', error: 'x' });
    first.record({ file: 'a.srt', sha256: sha, rep, status: 'created', sessionId: 's1' });
    const again = new Ledger(p, mock).load();
    expect(again.find(sha, rep)?.record).toMatchObject({ status: 'created', sessionId: 's1' });
    expect(again.find(sha, repKey({ email: 'other@acme.com' }))).toBeUndefined();
    expect(readFileSync(p, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('survives a line cut by a crash: reports it, and the next record starts on a new line', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    l.record({
      file: 'a.srt',
      sha256: 'aa',
      rep: 'email:r@x.io',
      status: 'created',
      sessionId: 's1',
    });
    appendFileSync(p, '{"file":"b.srt","sha2'); // torn write, no newline
    const reloaded = new Ledger(p, mock).load();
    expect(reloaded.unreadableLines).toEqual([2]);
    reloaded.record({ file: 'c.srt', sha256: 'cc', rep: 'email:r@x.io', status: 'unknown' });
    const final = new Ledger(p, mock).load();
    expect(statusOf(final, 'cc', 'email:r@x.io')).toBe('unknown');
    expect(statusOf(final, 'aa', 'email:r@x.io')).toBe('created');
    expect(final.unreadableLines).toEqual([2]);
  });

  it('the hash is of the content, so a renamed file is still recognised', () => {
    expect(contentHash('same')).toBe(contentHash('same'));
    expect(contentHash('same')).not.toBe(contentHash('same '));
  });

  it('refuses up front when the ledger cannot be written (a directory in its place)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
    expect(() => new Ledger(dir, mock).load().assertWritable()).toThrow(
      /EISDIR|EACCES|illegal operation|is not a regular file/,
    );
  });
});

describe('Ledger write-ahead', () => {
  const subject = { file: 'a.srt', sha256: 'ab'.repeat(32), rep: 'email:r@x.io' };

  it('an intent reads back as unknown until its outcome is written over it, in place', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const intent = l.intend(subject);
    expect(statusOf(new Ledger(p, mock).load(), subject.sha256, subject.rep)).toBe('unknown');
    const sizeBefore = readFileSync(p).length;
    l.settle(intent, { status: 'created', sessionId: '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b' });
    expect(readFileSync(p).length).toBe(sizeBefore);
    const lines = readFileSync(p, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...subject, status: 'created' });
    expect(new Ledger(p, mock).load().find(subject.sha256, subject.rep)?.record.sessionId).toBe(
      '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b',
    );
  });

  it('after refuseWrites (no lock on a full disk) nothing is written: the intent throws its error', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const full = Object.assign(new Error('no space'), { code: 'ENOSPC' });
    expect(l.refuseWrites(full)).toBe(l);
    expect(() => l.intend(subject)).toThrow(full);
    expect(() => l.record({ ...subject, status: 'failed', error: 'x' })).toThrow(full);
    expect(existsSync(p)).toBe(false);
  });

  it('a long error is shortened to fit, still one line', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
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
    const l = new Ledger(p, mock).load();
    const intent = l.intend(subject);
    writeFileSync(p, `\n${readFileSync(p, 'utf8')}`); // everything moved by one byte
    l.settle(intent, { status: 'failed', error: 'boom' });
    const lines = readFileSync(p, 'utf8').trim().split('\n');
    expect(lines.map((x) => JSON.parse(x).status)).toEqual(['sending', 'failed']);
    // A failed upload with nothing before it is sent again.
    expect(statusOf(new Ledger(p, mock).load(), subject.sha256, subject.rep)).toBeUndefined();
  });

  it('runs every line through the redactor before it is written', () => {
    const p = path();
    const l = new Ledger(p, mock, (t) => t.split('sk_secret').join('[REDACTED]')).load();
    l.settle(l.intend({ ...subject, file: 'sk_secret.srt' }), {
      status: 'failed',
      error: 'GET https://x/?k=sk_secret failed',
    });
    expect(readFileSync(p, 'utf8')).not.toContain('sk_secret');
  });
});

describe('D28 one upload, one service', () => {
  const subject = { file: 'a.srt', sha256: 'cd'.repeat(32), rep: 'email:r@x.io' };
  const id = '3f2a9c1e-5b7d-4e8f-8a1b-0c2d3e4f5a6b';

  it('a line of one service never counts for another service, or another credential', () => {
    const p = path();
    const first = new Ledger(p, mock).load();
    first.settle(first.intend(subject), { status: 'created', sessionId: id });
    const seen = (service: Parameters<typeof serviceIdentity>) =>
      statusOf(new Ledger(p, serviceIdentity(...service)).load(), subject.sha256, subject.rep);
    expect(seen(['http://127.0.0.1:4010/', { apiKey: 'demo-key-1' }])).toBe('created');
    expect(seen(['http://127.0.0.1:4011', { apiKey: 'demo-key-1' }])).toBeUndefined();
    expect(seen(['http://127.0.0.1:4010/tenant-b', { apiKey: 'demo-key-1' }])).toBeUndefined();
    expect(seen(['http://127.0.0.1:4010', { apiKey: 'demo-key-2' }])).toBeUndefined();
    expect(seen(['http://127.0.0.1:4010', { token: 'a.b.c' }])).toBeUndefined();
  });

  it('records the fingerprint, never the credential; one salt per ledger', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    l.settle(l.intend(subject), { status: 'created', sessionId: id });
    l.record({ ...subject, sha256: 'ef'.repeat(32), status: 'failed', error: 'x' });
    const text = readFileSync(p, 'utf8');
    expect(text).not.toContain('demo-key-1');
    const creds = text
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x).credential as string);
    expect(creds[0]).toMatch(/^scrypt1\.[0-9a-f]{32}\.[0-9a-f]{32}$/);
    expect(new Set(creds).size).toBe(1);
    // Another ledger gets another salt: the same key has another fingerprint there.
    const q = path();
    new Ledger(q, mock).load().record({ ...subject, status: 'failed', error: 'x' });
    expect(JSON.parse(readFileSync(q, 'utf8')).credential).not.toBe(creds[0]);
  });

  it('trusts the salt of its first line only: lines with another salt cost no hash and never count', () => {
    const p = path();
    const first = new Ledger(p, mock).load();
    first.settle(first.intend(subject), { status: 'created', sessionId: id });
    const [salt] = /scrypt1\.([0-9a-f]{32})/.exec(readFileSync(p, 'utf8'))?.slice(1) ?? [];
    // 300 crafted lines, each with a salt of its own, for this service, each claiming a text.
    const crafted = Array.from({ length: 300 }, (_, i) => {
      const otherSalt = i.toString(16).padStart(32, '0');
      return JSON.stringify({
        ...subject,
        sha256: contentHash(`crafted ${i}`),
        service: 'http://127.0.0.1:4010',
        credential: `scrypt1.${otherSalt}.${'0'.repeat(32)}`,
        status: 'created',
        sessionId: `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`,
        at: '2026-01-01T00:00:00.000Z',
      });
    });
    // And one whose credential is no fingerprint of ours at all: it names no credential.
    crafted.push(JSON.stringify({ ...JSON.parse(crafted[0] ?? '{}'), credential: 'plain' }));
    appendFileSync(p, `${crafted.join('\n')}\n`);
    // A line of this ledger's salt written after them still counts.
    const later = new Ledger(p, mock).load();
    later.record({ ...subject, sha256: contentHash('later'), status: 'created', sessionId: id });
    const salts: string[] = [];
    const counting = {
      url: mock.url,
      fingerprint: (s: string) => {
        salts.push(s);
        return mock.fingerprint(s);
      },
    };
    const l = new Ledger(p, counting).load();
    expect(new Set(salts)).toEqual(new Set([salt]));
    expect(l.foreignSaltLines).toEqual(Array.from({ length: 300 }, (_, i) => i + 2));
    expect(statusOf(l, subject.sha256, subject.rep)).toBe('created');
    expect(statusOf(l, contentHash('later'), subject.rep)).toBe('created');
    expect(statusOf(l, contentHash('crafted 7'), subject.rep)).toBeUndefined();
  });

  it('a refreshed bearer token (new exp/iat) is the same caller; another org is not', () => {
    const jwt = (claims: object) =>
      `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
    const p = path();
    const a = serviceIdentity('https://api.example.com', {
      token: jwt({ org: 'o1', sub: 'u', exp: 1, iat: 0 }),
    });
    new Ledger(p, a).load().record({ ...subject, status: 'created', sessionId: id });
    const later = serviceIdentity('https://api.example.com', {
      token: jwt({ org: 'o1', sub: 'u', exp: 99, iat: 50 }),
    });
    const other = serviceIdentity('https://api.example.com', {
      token: jwt({ org: 'o2', sub: 'u' }),
    });
    expect(statusOf(new Ledger(p, later).load(), subject.sha256, subject.rep)).toBe('created');
    expect(statusOf(new Ledger(p, other).load(), subject.sha256, subject.rep)).toBeUndefined();
  });

  it('a failed or unknown re-upload (--force) leaves the earlier success in force', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    l.settle(l.intend(subject), { status: 'created', sessionId: id });
    l.settle(l.intend(subject), { status: 'failed', error: '502' });
    l.intend(subject); // died in flight
    const again = new Ledger(p, mock).load().find(subject.sha256, subject.rep);
    expect(again).toMatchObject({ kind: 'uploaded', record: { sessionId: id, line: 1 } });
  });

  it('a line written before D28 (no service) is handed over for a look-up, never as uploaded', () => {
    const p = path();
    writeFileSync(
      p,
      `${JSON.stringify({ ...subject, status: 'created', sessionId: id, at: '2026-01-01T00:00:00.000Z' })}\n`,
    );
    const l = new Ledger(p, mock).load();
    expect(l.find(subject.sha256, subject.rep)).toMatchObject({
      kind: 'legacy',
      record: { line: 1 },
    });
    // Once this service has a line of its own, that line decides.
    l.record({ ...subject, status: 'failed', error: 'x' });
    expect(new Ledger(p, mock).load().find(subject.sha256, subject.rep)).toBeUndefined();
  });
});
