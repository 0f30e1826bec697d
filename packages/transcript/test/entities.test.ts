import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { cues, imp, SPEAKERS, texts, timedCues, vttCue } from './support/imports.js';

// Character references (&amp;, &#237;) in what meeting tools export: WebVTT decodes them in names
// and cue text, SRT keeps them as written. A wrong entity changes a speaker's name, and so the
// e-mail the speaker map gives them.

describe('WebVTT imports decode character references in names and text', () => {
  it('Zoom "Name: text" cues keep the name as written, entities decoded', () => {
    const r = importTranscript(
      'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nAna&#32;Ruiz: hi &amp; welcome\n',
      { speakers: SPEAKERS },
    );
    expect(r.source).toBe('zoom-vtt');
    expect(timedCues(r)).toEqual([[1000, 2000, 'a@x.io', 'hi & welcome']]);
  });

  it('decodes entities in the text of every cue, with a voice, a name or neither', () => {
    expect(
      texts(imp(vttCue('<v Ana Ruiz>Tom &amp; Jerry\nand &quot;more&quot;'), 'teams-vtt')),
    ).toEqual(['Tom & Jerry\nand "more"']);
    expect(
      cues(imp(vttCue('Ana Ruiz: hi &amp; bye\nsecond &quot;line&quot;'), 'zoom-vtt')),
    ).toEqual([[1000, 'a@x.io', 'hi & bye\nsecond "line"']]);
    expect(cues(imp(vttCue('Tom &amp; Jerry'), 'webvtt'))).toEqual([[1000, null, 'Tom & Jerry']]);
  });

  it('leaves unknown entity names alone, including Object.prototype properties', () => {
    const vtt =
      'WEBVTT\n\n00:00.000 --> 00:01.000\n<v Ana &toString;&__proto__;>hi &constructor; &amp; &hasOwnProperty;</v>\n';
    const r = importTranscript(vtt, { speakers: { 'Ana &toString;&__proto__;': 'a@x.io' } });
    expect(r.speakers).toEqual([
      { name: 'Ana &toString;&__proto__;', email: 'a@x.io', cueCount: 1 },
    ]);
    expect(parseTranscript(r.srt).cues[0]?.text).toBe('hi &constructor; & &hasOwnProperty;');
  });
});

describe('SRT imports keep character references as written', () => {
  it('keeps the lines after the label line and leaves entities alone', () => {
    const r = imp('1\n00:00:01,000 --> 00:00:02,000\nAna Ruiz: Tom &amp; Jerry\nsecond\n', 'srt');
    expect(cues(r)).toEqual([[1000, 'a@x.io', 'Tom &amp; Jerry\nsecond']]);
  });
});
