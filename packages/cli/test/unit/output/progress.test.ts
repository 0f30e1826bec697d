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

describe('progress (TTY-only status lines)', () => {
  it('writes nothing at all when disabled (not a TTY, or --quiet)', () => {
    const s = sink(80);
    const p = createProgress(s.stream, false);
    p.set('a', 'uploading');
    p.done('a');
    p.stop();
    expect(s.text()).toBe('');
  });

  it('redraws its block in place; a finished line leaves the block', () => {
    const s = sink(80);
    const p = createProgress(s.stream, true);
    p.set('a', 'a.srt: uploading');
    p.set('b', 'b.srt: uploading');
    p.done('a');
    p.stop();
    const out = s.text();
    expect(out).toContain('a.srt: uploading');
    expect(out).toContain('\u001b[2A\u001b[0J'); // cleared the two-line block
    // The redraw after done() has b's line only.
    expect(out.slice(out.lastIndexOf('\u001b[2A\u001b[0J'))).not.toContain('a.srt');
  });

  it('cuts rows to the terminal width, so clearing by row count stays exact', () => {
    const s = sink(20);
    const p = createProgress(s.stream, true);
    p.set('a', 'x'.repeat(100));
    p.stop();
    const row = s.text().split('\n')[0] ?? '';
    expect([...row].length).toBeLessThanOrEqual(20);
  });
});
