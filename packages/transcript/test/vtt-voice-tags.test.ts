import { importTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { codes, cues, imp, SPEAKERS, timedCues, vttCue } from './support/imports.js';

// Teams writes each speaker as a WebVTT voice tag (<v Name>): which tags name a speaker, which
// name nobody, and which are only text.

describe('Teams WebVTT voice tags (<v Name>)', () => {
  const vtt = (first: string) =>
    importTranscript(vttCue(first), { source: 'teams-vtt', speakers: SPEAKERS });

  it('reads <v Name>, <v.class Name> and a tab after v; the name with entities decoded', () => {
    expect(timedCues(vtt('<v Ana Ruiz>hello</v>'))).toEqual([[1000, 2000, 'a@x.io', 'hello']]);
    expect(timedCues(vtt('<v.loud Ben Okafor>hi'))).toEqual([[1000, 2000, 'b@x.io', 'hi']]);
    expect(timedCues(vtt('<v\tAna&#32;Ruiz>hey'))).toEqual([[1000, 2000, 'a@x.io', 'hey']]);
  });

  it('a voice span without a name is a turn without speaker; "<vx" is no voice span', () => {
    const r = vtt('<v>hello');
    expect(r.speakers).toEqual([]);
    expect(timedCues(r)).toEqual([[1000, 2000, null, 'hello']]);
    const v = vtt('<vx Ana Ruiz>hello');
    expect(v.speakers).toEqual([]);
    expect(timedCues(v)).toEqual([[1000, 2000, null, 'hello']]);
    // "<v Name" with no closing '>' is text.
    expect(vtt('<v Ana Ruiz hello').speakers).toEqual([]);
  });

  it('reads a voice span after leading spaces; "<v.class>" alone names nobody', () => {
    expect(cues(imp(vttCue('   <v Ana Ruiz>hi'), 'teams-vtt'))).toEqual([[1000, 'a@x.io', 'hi']]);
    const r = imp(vttCue('<v.loud>hi'), 'teams-vtt');
    expect(r.speakers).toEqual([]);
    expect(cues(r)).toEqual([[1000, null, 'hi']]);
    // Text that merely has a '>' after its third character is no voice span.
    expect(imp(vttCue('ab c> d'), 'webvtt').speakers).toEqual([]);
  });

  it('keeps the reader warnings but not the markup notes of voice spans', () => {
    const r = imp('00:00:01.000 --> 00:00:02.000\n<v Ana Ruiz>hi\n', 'teams-vtt');
    expect(codes(r)).toEqual(['missing_webvtt_header']);
  });
});
