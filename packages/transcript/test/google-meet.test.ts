import { detectSource, importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { cues, firstLine, imp, SPEAKERS, skipped, texts, timedCues } from './support/imports.js';

// Google Meet's transcript document: "Name: text" turns under a title and an attendees block,
// with HH:MM:SS paragraphs as the only times. Which lines are speech, which turn a line
// continues, and which line a skipped-line note names.

describe('Google Meet: turns, time markers and what is no speech', () => {
  it('reads the first line as speech, continues turns with trimmed lines, reports the line', () => {
    const r = imp('Ana Ruiz: hi\n\n   more words  \nBob: ho', 'meet-txt');
    expect(cues(r).map((c) => c.slice(1))).toEqual([
      ['a@x.io', 'hi\nmore words'],
      ['bob', 'ho'],
    ]);
    expect(skipped(r)).toEqual([]);
    expect(firstLine(r)).toBe(4);
  });

  it('leaves out the attendees block, the title and the disclaimer wherever they stand', () => {
    const r = imp(
      'Ana Ruiz: hi\nAttendees\nAna Ruiz, Ben Okafor\nWeekly sync (2024-01-01) - Transcript\n' +
        'This editable transcript was computer generated and might contain errors.\nBen Okafor: ho',
      'meet-txt',
    );
    expect(texts(r)).toEqual(['hi', 'ho']);
    expect(skipped(r)).toEqual([2, 3, 4, 5]);
  });

  it('Meet: a line before any turn is skipped and named by its own line number', () => {
    const r = importTranscript('Weekly sync\n\nsome note\n00:00:05\nAna Ruiz: hello\nmore words', {
      source: 'meet-txt',
      speakers: SPEAKERS,
    });
    expect(skipped(r)).toEqual([1, 3]);
    expect(r.diagnostics[0]).toEqual({
      code: 'skipped_line',
      severity: 'info',
      line: 1,
      message:
        'Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "Weekly sync".',
    });
    expect(timedCues(r)).toEqual([[5000, 6200, 'a@x.io', 'hello\nmore words']]);
  });

  it('Meet: only a bare HH:MM:SS paragraph is a time marker; a spoken "10:30" is speech', () => {
    const meet = [
      'Sync (2026-06-15 14:02 GMT+1) - Transcript',
      'Attendees',
      'Ana Ruiz, Ben Okafor',
      'Ana Ruiz: When shall we meet?',
      '10:30',
      'Ben Okafor: Fine.',
      '00:05:00',
      'Ana Ruiz: Done.',
      'Meeting ended after 00:06:00 👋',
    ].join('\n');
    expect(detectSource(meet)).toBe('meet-txt');
    const r = importTranscript(meet, {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    const cues = parseTranscript(r.srt).cues;
    expect(cues.map((c) => c.text)).toEqual(['When shall we meet?\n10:30', 'Fine.', 'Done.']);
    // "10:30" set no clock: Ben's turn follows Ana's estimate; the 00:05:00 marker times Ana's.
    expect(cues[1]?.startMs).toBeLessThan(10_000);
    expect(cues[2]?.startMs).toBe(300_000);
  });
});
