/**
 * The ledger as a user meets it, over real files: where each line goes and what its number is,
 * what a line it cannot read does, what `sending` reads back as, where an outcome lands (over the
 * reserved room, or appended), how large a ledger it reads, and that it holds no file open.
 */
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contentHash,
  Ledger,
  type LedgerOutcome,
  type LedgerSubject,
  repKey,
} from '../../../src/upload/ledger.js';
import { serviceIdentity } from '../../../src/upload/service.js';

const path = () => join(mkdtempSync(join(tmpdir(), 'ledger-')), '.rcs-ledger.jsonl');
const mock = serviceIdentity('http://127.0.0.1:4010', { apiKey: 'demo-key-1' });
const rep = 'email:r@x.io';
const subject = (name: string): LedgerSubject => ({ file: name, sha256: contentHash(name), rep });
const id = (n: number) => `3f2a9c1e-5b7d-4e8f-8a1b-${n.toString().padStart(12, '0')}`;
const linesOf = (p: string) => readFileSync(p, 'utf8').split('\n');
/** A line as written before D28: no service, no credential. */
const preD28 = (name: string, status: string, sessionId?: string) =>
  JSON.stringify({ ...subject(name), status, sessionId, at: '2026-01-01T00:00:00.000Z' });
/** The length `,"status":…` of an outcome takes in the reserved room. */
const tailBytes = (o: LedgerOutcome) => Buffer.byteLength(JSON.stringify(o)) - 1;

describe('the keys a line is found by', () => {
  it('a text is known by the SHA-256 of its UTF-8 bytes, in hex', () => {
    expect(contentHash('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(contentHash('é transcript')).toBe(
      '9bf6c720053c8f21b75b3929b2d4805bd107af348eb8121d9d164b38181fd540',
    );
  });

  it('a rep without an email is known by its user id', () => {
    expect(repKey({ userId: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })).toBe(
      'userId:7c9e6679-7425-40de-944b-e07fc1f90ae7',
    );
  });
});

describe('where a line goes, and its number', () => {
  it('an empty ledger file gets its first line as line 1, with nothing before it', () => {
    const p = path();
    writeFileSync(p, '');
    const written = new Ledger(p, mock).load().record({ ...subject('a'), status: 'failed' });
    expect(written.line).toBe(1);
    expect(linesOf(p)).toHaveLength(2); // the line and the empty rest after its newline
    expect(JSON.parse(linesOf(p)[0] ?? '')).toMatchObject({ file: 'a', status: 'failed' });
  });

  it('a ledger that ends with its newline gets the next line right after, numbered on', () => {
    const p = path();
    const first = new Ledger(p, mock).load();
    first.record({ ...subject('a'), status: 'failed' });
    first.record({ ...subject('b'), status: 'failed' });
    const written = new Ledger(p, mock).load().record({ ...subject('c'), status: 'failed' });
    expect(written.line).toBe(3);
    expect(linesOf(p).map((l) => (l === '' ? '' : JSON.parse(l).file))).toEqual([
      'a',
      'b',
      'c',
      '',
    ]);
  });

  it('a ledger without its final newline (a torn line) gets the next line on a fresh line', () => {
    const p = path();
    new Ledger(p, mock).load().record({ ...subject('a'), status: 'failed' });
    appendFileSync(p, '{"file":"b","sha2');
    const l = new Ledger(p, mock).load();
    expect(l.unreadableLines).toEqual([2]);
    const written = l.record({ ...subject('c'), status: 'created', sessionId: id(3) });
    expect(written.line).toBe(3);
    const again = new Ledger(p, mock).load();
    expect(again.unreadableLines).toEqual([2]);
    expect(again.find(contentHash('c'), rep)).toMatchObject({
      kind: 'uploaded',
      record: { line: 3 },
    });
  });

  it('an intent on a ledger without its final newline still takes its outcome in place', () => {
    const p = path();
    writeFileSync(p, '{"file":"torn"');
    const l = new Ledger(p, mock).load();
    const intent = l.intend(subject('a'));
    const size = statSync(p).size;
    l.settle(intent, { status: 'created', sessionId: id(1) });
    expect(statSync(p).size).toBe(size);
    expect(linesOf(p)).toHaveLength(3);
    expect(new Ledger(p, mock).load().find(contentHash('a'), rep)).toMatchObject({
      kind: 'uploaded',
      record: { line: 2, sessionId: id(1) },
    });
  });
});

describe('lines that are not uploads', () => {
  it('are reported by their 1-based number and skipped; blank lines are neither', () => {
    const p = path();
    new Ledger(p, mock).load().record({ ...subject('a'), status: 'created', sessionId: id(1) });
    appendFileSync(
      p,
      [
        '   ', // 2: blank
        '\t', // 3: blank
        JSON.stringify({ sha256: contentHash('b'), status: 'created' }), // 4: no rep
        JSON.stringify({ rep, status: 'created' }), // 5: no text
        'null', // 6
        '"created"', // 7
        '{"file":', // 8: cut
        '',
      ].join('\n'),
    );
    const l = new Ledger(p, mock).load();
    expect(l.unreadableLines).toEqual([4, 5, 6, 7, 8]);
    expect(l.find(contentHash('a'), rep)).toMatchObject({ kind: 'uploaded' });
    expect(l.find(contentHash('b'), rep)).toBeUndefined();
    expect(l.record({ ...subject('c'), status: 'failed' }).line).toBe(9);
  });
});

describe('what a line says', () => {
  it('a line left `sending` reads back as unknown, with why, at its own line', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    l.intend(subject('a'));
    l.intend(subject('b'));
    const again = new Ledger(p, mock).load();
    expect(again.find(contentHash('b'), rep)).toEqual({
      kind: 'unknown',
      record: expect.objectContaining({
        status: 'unknown',
        error: 'no outcome was recorded after sending',
        line: 2,
      }),
    });
  });

  it('an intent counts at once in the run that wrote it: that text is not sent again', () => {
    const l = new Ledger(path(), mock).load();
    l.intend(subject('a'));
    expect(l.find(contentHash('a'), rep)).toMatchObject({
      kind: 'unknown',
      record: { file: 'a', status: 'sending', line: 1 },
    });
  });

  it('settle and record return the line as written, and count at once', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const settled = l.settle(l.intend(subject('a')), { status: 'created', sessionId: id(1) });
    expect(settled).toMatchObject({
      ...subject('a'),
      status: 'created',
      sessionId: id(1),
      line: 1,
    });
    expect(l.find(contentHash('a'), rep)).toMatchObject({ kind: 'uploaded', record: { line: 1 } });
    const recorded = l.record({ ...subject('b'), status: 'created', sessionId: id(2) });
    expect(recorded).toMatchObject({ ...subject('b'), status: 'created', line: 2 });
    expect(l.find(contentHash('b'), rep)).toMatchObject({ kind: 'uploaded', record: { line: 2 } });
    expect([...l.recordedSessionIds]).toEqual([id(1), id(2)]);
  });

  it('record keeps the time it is given, and stamps the present one otherwise', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const at = '2026-01-02T03:04:05.678Z';
    expect(l.record({ ...subject('a'), status: 'failed', at }).at).toBe(at);
    const before = Date.now();
    const stamped = Date.parse(l.record({ ...subject('b'), status: 'failed' }).at);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
    expect(JSON.parse(linesOf(p)[0] ?? '').at).toBe(at);
  });

  it('recordedSessionIds holds the sessions this service’s lines name, and only those', () => {
    const p = path();
    writeFileSync(p, `${preD28('old', 'created', id(9))}\n`);
    const l = new Ledger(p, mock).load();
    l.record({ ...subject('a'), status: 'created', sessionId: id(1) });
    l.record({ ...subject('b'), status: 'failed', error: '502' });
    l.record({
      ...subject('c'),
      status: 'unknown',
      sessionId: id(2),
      note: 'found on the service',
    });
    const other = serviceIdentity('http://127.0.0.1:4011', { apiKey: 'demo-key-1' });
    new Ledger(p, other).load().record({ ...subject('d'), status: 'created', sessionId: id(4) });
    expect([...new Ledger(p, mock).load().recordedSessionIds]).toEqual([id(1), id(2)]);
  });

  it('a line written before D28 that failed is no lead: the text is simply sent', () => {
    const p = path();
    writeFileSync(p, `${preD28('a', 'failed')}\n${preD28('b', 'unknown')}\n`);
    const l = new Ledger(p, mock).load();
    expect(l.find(contentHash('a'), rep)).toBeUndefined();
    expect(l.find(contentHash('b'), rep)).toMatchObject({ kind: 'legacy', record: { line: 2 } });
  });
});

describe('where an outcome lands', () => {
  it('an outcome too long for the room without an error (a long session id) is appended whole', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const long = 's'.repeat(300);
    const settled = l.settle(l.intend(subject('a')), { status: 'created', sessionId: long });
    expect(settled.line).toBe(2);
    const lines = linesOf(p);
    expect(JSON.parse(lines[0] ?? '').status).toBe('sending');
    expect(JSON.parse(lines[1] ?? '')).not.toHaveProperty('error');
    expect(new Ledger(p, mock).load().find(contentHash('a'), rep)).toMatchObject({
      kind: 'uploaded',
      record: { sessionId: long, line: 2 },
    });
  });

  it('an outcome that no cut of its error fits in the room is appended whole, error and all', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const outcome = {
      status: 'unknown',
      sessionId: 's'.repeat(300),
      error: 'e'.repeat(50),
    } as const;
    expect(l.settle(l.intend(subject('a')), outcome)).toMatchObject({ line: 2 });
    expect(JSON.parse(linesOf(p)[1] ?? '')).toMatchObject(outcome);
  });

  it('the room holds an outcome of up to 255 bytes in place; a longer one is appended', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const empty = tailBytes({ status: 'created', sessionId: '' });
    const fits = { status: 'created', sessionId: 'f'.repeat(255 - empty) } as const;
    const over = { status: 'created', sessionId: 'o'.repeat(256 - empty) } as const;
    expect(tailBytes(fits)).toBe(255);
    expect(l.settle(l.intend(subject('fits')), fits).line).toBe(1);
    expect(l.settle(l.intend(subject('over')), over).line).toBe(3);
    expect(linesOf(p).map((x) => (x === '' ? '' : JSON.parse(x).status))).toEqual([
      'created',
      'sending',
      'created',
      '',
    ]);
  });

  it('an error of any length lands in place: whole when it fits, else cut by code points with …', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const base = tailBytes({ status: 'failed', error: '' });
    const errors = Array.from({ length: 12 }, (_, i) => 'x'.repeat(250 + i - base));
    errors.push('🙂'.repeat(100), `é${'x'.repeat(600)}`);
    for (const [i, error] of errors.entries()) {
      expect(l.settle(l.intend(subject(`f${i}`)), { status: 'failed', error }).line).toBe(i + 1);
    }
    const read = linesOf(p)
      .slice(0, -1)
      .map((x) => JSON.parse(x).error as string);
    expect(read).toHaveLength(errors.length);
    for (const [i, error] of read.entries()) {
      const whole = errors[i] ?? '';
      if (tailBytes({ status: 'failed', error: whole }) < 256) expect(error).toBe(whole);
      else {
        expect(error.endsWith('…') && whole.startsWith(error.slice(0, -1))).toBe(true);
        // As much kept as fits: to the room's last byte (255), less a wide character's rest.
        const width = Buffer.byteLength(Array.from(whole).at(-1) ?? '');
        expect(tailBytes({ status: 'failed', error })).toBeGreaterThan(255 - width);
      }
    }
    expect(read[6]).toMatch(/x…$/); // the first whose tail takes the whole room: 256 bytes
    expect(read[12]).toMatch(/^(🙂)*…$/u); // never half a character
  });

  it('a long error is cut in one go: the redactor runs over the whole, then over the cut', () => {
    const p = path();
    let calls = 0;
    const l = new Ledger(p, mock, (text) => {
      calls += 1;
      return text;
    }).load();
    const intent = l.intend(subject('a'));
    calls = 0;
    l.settle(intent, { status: 'failed', error: 'x'.repeat(2000) });
    expect(calls).toBe(2);
    expect(linesOf(p)).toHaveLength(2);
  });

  it('when the room was cut away (the file truncated under it), the outcome is appended', () => {
    const p = path();
    const l = new Ledger(p, mock).load();
    const intent = l.intend(subject('a'));
    truncateSync(p, statSync(p).size - 100);
    appendFileSync(p, '\n');
    l.settle(intent, { status: 'created', sessionId: id(1) });
    const again = new Ledger(p, mock).load();
    expect(again.unreadableLines).toEqual([1]);
    expect(again.find(contentHash('a'), rep)).toMatchObject({
      kind: 'uploaded',
      record: { sessionId: id(1), line: 2 },
    });
  });
});

describe('the ledger file', () => {
  it('a link in the ledger’s place is refused, not read as an empty ledger', () => {
    const p = path();
    const target = `${p}.elsewhere`;
    writeFileSync(target, '');
    symlinkSync(target, p);
    expect(() => new Ledger(p, mock).load()).toThrow(/symbolic link/);
    expect(() => new Ledger(p, mock).assertWritable()).toThrow(/symbolic link/);
  });

  it('assertWritable creates a missing ledger, empty', () => {
    const p = path();
    const l = new Ledger(p, mock);
    expect(l.assertWritable()).toBe(l);
    expect(readFileSync(p, 'utf8')).toBe('');
  });

  it('a ledger of exactly 256 MiB is read; one byte more is refused with its size', () => {
    const p = path();
    new Ledger(p, mock).load().record({ ...subject('a'), status: 'created', sessionId: id(1) });
    truncateSync(p, 256 * 2 ** 20); // sparse: the rest reads as one line of zero bytes
    const l = new Ledger(p, mock).load();
    expect(l.find(contentHash('a'), rep)).toMatchObject({ kind: 'uploaded' });
    expect(l.unreadableLines).toEqual([2]);
    truncateSync(p, 256 * 2 ** 20 + 1);
    expect(() => new Ledger(p, mock).load()).toThrow(
      `the ledger ${p} is 257 MiB, more than rcs reads (256 MiB): keep it, and pass --ledger FILE to start a new one`,
    );
  });

  it('holds no descriptor of the ledger open after any call, whether it succeeds or throws', () => {
    const p = path();
    const open = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === p;
        } catch {
          return false; // closed meanwhile (the descriptor readdir itself used)
        }
      });
    const l = new Ledger(p, mock).load().assertWritable();
    l.settle(l.intend(subject('a')), { status: 'created', sessionId: id(1) });
    l.settle(l.intend(subject('b')), { status: 'created', sessionId: 's'.repeat(300) });
    l.record({ ...subject('c'), status: 'failed' });
    new Ledger(p, mock).load();
    expect(open()).toEqual([]);
    truncateSync(p, 256 * 2 ** 20 + 1);
    expect(() => new Ledger(p, mock).load()).toThrow(/257 MiB/);
    expect(open()).toEqual([]);
  });
});
