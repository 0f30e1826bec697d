import { parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { renderTimeline, segmentsOf } from '../../../src/output/timeline.js';

describe('talk-time timeline', () => {
  it('draws one bar per speaker across the call, in first-speaking order, with talk shares', () => {
    const out = renderTimeline(
      [
        { speaker: 'rep@acme.com', startMs: 0, endMs: 30_000 },
        { speaker: 'buyer@client.io', startMs: 30_000, endMs: 40_000 },
        { speaker: 'rep@acme.com', startMs: 40_000, endMs: 60_000 },
      ],
      { width: 12, rep: 'rep@acme.com' },
    );
    const lines = out.split('\n');
    expect(lines[0]).toBe('Talk time');
    expect(lines[1]).toBe('rep@acme.com (rep)  ██████··████  83%');
    expect(lines[2]).toBe('buyer@client.io     ······██····  17%');
    expect(lines[3]).toMatch(/^ +0:00 +1:00$/);
  });

  it('marks a slice with only a little speech differently from a full one', () => {
    const out = renderTimeline(
      [
        { speaker: 'a', startMs: 0, endMs: 10_000 },
        { speaker: 'b', startMs: 9_900, endMs: 10_000 },
      ],
      { width: 10 },
    );
    expect(out.split('\n')[2]).toMatch(/^b {2}·········▓/);
  });

  it('has nothing to draw for plain text (no timing)', () => {
    const parsed = parseTranscript('Rep: hello there\nClient: hi, how are you doing today?');
    expect(segmentsOf(parsed)).toEqual([]);
    expect(renderTimeline([])).toBe('');
  });

  it('reads speakers from a labeled SRT', () => {
    const parsed = parseTranscript(
      '1\n00:00:00,000 --> 00:00:02,000\nrep@acme.com: hi\n\n2\n00:00:02,000 --> 00:00:04,000\nClient: hello\n',
    );
    expect(segmentsOf(parsed).map((s) => s.speaker)).toEqual(['rep@acme.com', 'client']);
  });
});
