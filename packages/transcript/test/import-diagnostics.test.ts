import { IMPORT_SOURCES, importTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { codes, fireflies, SPEAKERS, times } from './support/imports.js';

// What importTranscript tells a user about the input as a whole: a source it does not know, JSON
// it cannot read, input with no speech, turn text the SRT would read differently, and the note
// for a line that is not speech. (The speaker map's messages: speaker-map.test.ts.)

describe('importTranscript: the source it reads', () => {
  it('names an unknown source and the known ones, and reads the text as plain', () => {
    const r = importTranscript('Ana: hi', { source: 'docx' as never });
    expect(r.source).toBe('plain');
    expect(r.diagnostics[0]).toEqual({
      code: 'unknown_source',
      severity: 'error',
      line: 0,
      message: `Unknown source "docx"; expected one of ${IMPORT_SOURCES.join(', ')}.`,
    });
    expect(IMPORT_SOURCES).toContain('gong-json');
    expect(times(r)).toEqual([[0, 1000, 'ana']]);
  });

  it('says which JSON source is broken and why', () => {
    const r = importTranscript('{"callTranscripts": [', { source: 'gong-json' });
    expect(r.diagnostics[0]).toMatchObject({ code: 'invalid_json', severity: 'error', line: 0 });
    expect(r.diagnostics[0]?.message).toMatch(/^The gong-json input is not valid JSON: \S/);
  });

  it('reads WebVTT when told to', () => {
    const r = importTranscript('WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nhi\n', {
      source: 'webvtt',
    });
    expect(times(r)).toEqual([[1000, 2500, null]]);
    expect(r.diagnostics).toEqual([]);
  });

  it('accepts a non-string input as empty, with no speech', () => {
    expect(importTranscript(42 as never).diagnostics).toEqual([
      {
        code: 'no_speech',
        severity: 'error',
        line: 0,
        message: 'No speech turns were found in the plain input.',
      },
    ]);
  });
});

describe('importTranscript: turn text the SRT would read differently', () => {
  it('warns about turn text that SRT would read differently, naming the turn line', () => {
    const r = importTranscript('Hello there\nNote: this\n00:00:01,000 --> 00:00:02,000', {
      source: 'plain',
    });
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toEqual([
      {
        code: 'timing_estimated',
        severity: 'warning',
        line: 0,
        message:
          'The source gives no start and/or end time for some turns; they were estimated (150 words per minute), so KPIs such as talk speed are approximate.',
      },
      {
        code: 'text_looks_like_timing',
        severity: 'warning',
        line: 2,
        message:
          'The turn at line 2 contains a line that is an SRT timing line; in the SRT it would start a new cue.',
      },
    ]);
    const label = importTranscript(
      JSON.stringify({ sentences: [{ start_time: 0, end_time: 1, text: 'Re: the budget' }] }),
      { source: 'fireflies-json' },
    );
    expect(label.diagnostics).toEqual([
      {
        code: 'text_looks_like_label',
        severity: 'warning',
        line: 0,
        message:
          'The turn at line 0 has no speaker but starts like a label ("Re: the budget"); the service would remove that prefix.',
      },
    ]);
    // A turn with a speaker may start like a label: its own label comes first.
    expect(
      codes(fireflies([{ speaker_name: 'Ana', start_time: 0, end_time: 1, text: 'Re: x' }])),
    ).toEqual(['unmapped_speaker']);
  });
});

describe('importTranscript: the note for a line that is not speech', () => {
  it('clips a long skipped line to 60 characters', () => {
    const long = 'x'.repeat(61);
    const r = importTranscript(`${long}\nAna Ruiz  0:01\nhi`, {
      source: 'otter-txt',
      speakers: SPEAKERS,
    });
    expect(r.diagnostics[0]?.message).toBe(
      `Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "${'x'.repeat(60)}…".`,
    );
  });
});
