import { parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../../src/output/table.js';
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

  it('200,000 segments, each its own speaker: drawn (no argument list as long as the call)', () => {
    const segments = Array.from({ length: 200_000 }, (_, i) => ({
      speaker: `s${i}`,
      startMs: 1000 + i * 1000,
      endMs: 1000 + i * 1000 + 500,
    }));
    segments[123_456]!.speaker = 'a-much-longer-speaker-name';
    const lines = renderTimeline(segments, { width: 10 }).split('\n');
    expect(lines).toHaveLength(200_002);
    expect(lines[1]).toMatch(/^s0 {26}▓········· +0%$/);
    expect(lines[200_001]).toMatch(/^ {28}0:01 55:33:2\d$/);
  });
});

describe('plain table', () => {
  it('200,000 rows: every column as wide as its widest cell', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [`r${i}`, i]);
    rows[150_000] = ['the-widest-label', 7];
    const lines = renderTable([{ header: 'Label' }, { header: 'N', align: 'right' }], rows).split(
      '\n',
    );
    expect(lines).toHaveLength(200_001);
    expect(lines[0]).toBe('Label                  N');
    expect(lines[1]).toBe('r0                     0');
    expect(lines[150_001]).toBe('the-widest-label       7');
  });
});
