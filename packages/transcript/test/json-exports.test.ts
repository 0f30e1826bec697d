import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { codes, imp, SPEAKERS, timedCues } from './support/imports.js';

// The JSON that Fireflies' and Gong's APIs return, as users save it: nested or partly filled, with
// values of the wrong type where a field was expected. What is read, what is estimated, and what
// is no speech.

describe('Fireflies and Gong JSON: where the sentences are, and values of the wrong type', () => {
  it('Fireflies: sentences at the top, under data or under transcript; odd entries tolerated', () => {
    const sentence = { speaker_name: 'Ana Ruiz', start_time: 1.5, end_time: 2.25, text: 'hi' };
    for (const json of [
      { sentences: [sentence] },
      { data: { sentences: [sentence] } },
      { transcript: { sentences: [sentence] } },
    ]) {
      const r = importTranscript(JSON.stringify(json), {
        source: 'fireflies-json',
        speakers: SPEAKERS,
      });
      expect(timedCues(r)).toEqual([[1500, 2250, 'a@x.io', 'hi']]);
    }
    const odd = importTranscript(
      JSON.stringify({ sentences: [null, 7, { speaker_name: 'Ana Ruiz', text: 5 }] }),
      { source: 'fireflies-json', speakers: SPEAKERS },
    );
    expect(odd.speakers).toEqual([{ name: 'Ana Ruiz', email: 'a@x.io', cueCount: 1 }]);
    expect(parseTranscript(odd.srt).cues.map((c) => c.text)).toEqual(['']);
    // Nothing to find: a scalar, or no sentences anywhere.
    for (const text of ['42', '{"data": 5}', '{"data": {"x": []}}', '{"transcript": null}']) {
      expect(
        importTranscript(text, { source: 'fireflies-json' }).diagnostics.map((d) => d.code),
      ).toEqual(['no_speech']);
    }
  });

  it('Fireflies: a speaker name that is not a string is no speaker; times must be finite numbers', () => {
    const r = imp(
      '{"sentences":[{"speaker_name":5,"start_time":"1.5","end_time":1e999,"text":"hi"}]}',
      'fireflies-json',
    );
    expect(r.speakers).toEqual([]);
    // Both times unusable: estimated from the start (0) at 150 words per minute (1 s at least).
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs])).toEqual([[0, 1000]]);
    expect(codes(imp('{"sentences": 5}', 'fireflies-json'))).toEqual(['no_speech']);
    expect(codes(imp('null', 'fireflies-json'))).toEqual(['no_speech']);
  });

  it('Gong: numeric and string speaker ids, missing times and text, skipped odd monologues', () => {
    const json = {
      callTranscripts: [
        null,
        { transcript: 'x' },
        {
          transcript: [
            null,
            { speakerId: 42, sentences: [{ start: 100, end: 900, text: 'one' }] },
            { speakerId: '7', sentences: [{ text: 4 }, null] },
            { speakerId: { id: 1 }, sentences: [{ start: 1000, end: 2000, text: 'who' }] },
            { speakerId: 42, sentences: 'none' },
          ],
        },
      ],
    };
    const r = importTranscript(JSON.stringify(json), {
      source: 'gong-json',
      speakers: { '42': 'a@x.io', '7': 'b@x.io' },
    });
    expect(r.speakers).toEqual([
      { name: '42', email: 'a@x.io', cueCount: 1 },
      { name: '7', email: 'b@x.io', cueCount: 2 },
    ]);
    expect(parseTranscript(r.srt).cues.map((c) => [c.label, c.text])).toEqual([
      ['a@x.io', 'one'],
      ['b@x.io', ''],
      ['b@x.io', ''],
      [null, 'who'],
    ]);
  });

  it('Gong: a time that is not a number is estimated', () => {
    const r = imp(
      JSON.stringify({
        callTranscripts: [
          { transcript: 5 },
          {
            transcript: [
              {
                speakerId: 1,
                sentences: [
                  { start: 100, end: '900', text: 'hi' },
                  { start: '2000', end: 3000, text: 'there' },
                ],
              },
            ],
          },
        ],
      }),
      'gong-json',
      { '1': 'a@x.io' },
    );
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label])).toEqual([
      [100, 1100, 'a@x.io'],
      [1100, 3000, 'a@x.io'],
    ]);
  });
});
