import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../../src/output/progress.js';

function sink(columns?: number) {
  const stream = new PassThrough() as PassThrough & { columns?: number };
  if (columns !== undefined) stream.columns = columns;
  let text = '';
  stream.on('data', (d) => {
    text += d;
  });
  return { stream, text: () => text };
}

/** A clock the test moves, so that redraw throttling is deterministic. */
function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('progress: the one TTY status block', () => {
  it('writes nothing at all when disabled (not a TTY, or --quiet)', () => {
    const s = sink(80);
    const p = createProgress(s.stream, false);
    p.set('a', 'uploading');
    p.done('a', 'uploaded');
    p.stop({ keep: true });
    expect(s.text()).toBe('');
  });

  it('redraws its block in place; a finished line leaves the block', () => {
    const s = sink(80);
    const c = clock();
    const p = createProgress(s.stream, true, c.now);
    p.set('a', 'a.srt: uploading');
    c.advance(100);
    p.set('b', 'b.srt: uploading');
    c.advance(100);
    p.done('a');
    p.stop();
    const out = s.text();
    expect(out).toContain('a.srt: uploading');
    expect(out).toContain('\u001b[2A\u001b[0J'); // cleared the two-line block
    // The redraw after done() has b's line only, and stop() clears it.
    const last = out.slice(out.lastIndexOf('\u001b[2A\u001b[0J'));
    expect(last).not.toContain('a.srt');
    expect(last).toContain('b.srt');
    expect(out.endsWith('\u001b[1A\u001b[0J')).toBe(true);
  });

  it('draws at most once per 100 ms however often it is told; stop({ keep }) shows the last state', () => {
    const s = sink(80);
    const c = clock();
    const p = createProgress(s.stream, true, c.now);
    for (let i = 0; i <= 1000; i++) p.set('users', `users ${i}`);
    const frames = s.text().split('users ').length - 1;
    expect(frames).toBe(1);
    p.stop({ keep: true });
    expect(s.text()).toContain('users 1000');
    expect(s.text()).not.toMatch(/\u001b\[0J$/);
  });

  it('a result line is printed once, above the block, and stays', () => {
    const s = sink(80);
    const p = createProgress(s.stream, true);
    p.set('demo', 'starting');
    p.done('demo', 'mock API at http://127.0.0.1:1');
    p.set('demo', 'uploading');
    p.stop();
    const out = s.text();
    expect(out.match(/✔ mock API at http:\/\/127\.0\.0\.1:1\n/g)).toHaveLength(1);
  });

  it('cuts rows to the terminal width, so clearing by row count stays exact; 0 columns is safe', () => {
    const s = sink(20);
    const p = createProgress(s.stream, true);
    p.set('a', 'x'.repeat(100));
    p.stop({ keep: true });
    const row = s.text().split('\n')[0] ?? '';
    expect([...row].length).toBeLessThanOrEqual(20);
    const z = sink(0);
    const q = createProgress(z.stream, true);
    q.set('a', 'y'.repeat(300));
    q.stop({ keep: true });
    expect([...(z.text().split('\n')[0] ?? '')].length).toBeLessThanOrEqual(80);
  });
});
