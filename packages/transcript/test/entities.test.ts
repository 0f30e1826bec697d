import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { decodeEntities } from '../src/importers/entities.js';
import { cues, imp, SPEAKERS, texts, timedCues, vttCue } from './support/imports.js';

// Character references (&amp;, &#237;) in what meeting tools export: WebVTT decodes them in names
// and cue text, SRT keeps them as written. A wrong entity changes a speaker's name, and so the
// e-mail the speaker map gives them.

describe('decodeEntities', () => {
  it('leaves text without & as it is', () => {
    expect(decodeEntities('María; 5 < 6')).toBe('María; 5 < 6');
  });

  it.each([
    ['Mar&#237;a', 'María'],
    ['Mar&#xED;a', 'María'],
    ['Mar&#XeD;a', 'María'],
    ['&amp;&lt;&gt;&quot;&apos;', '&<>"\''],
    ['a&nbsp;b', 'a\u00a0b'],
    ['&lrm;x&rlm;', '\u200ex\u200f'],
    ['&#128512;', '😀'],
    ['&#x10FFFF;', '\u{10ffff}'],
    ['&#1;', '\u0001'],
    ['Tom &amp; Jerry &amp; Co', 'Tom & Jerry & Co'],
    ['&amp;amp;', '&amp;'],
    ['x &#65;&#66; y', 'x AB y'],
  ])('%j is %j', (text, decoded) => {
    expect(decodeEntities(text)).toBe(decoded);
  });

  it.each([
    'AT&T',
    'a & b; c',
    '&;',
    '&#;',
    '&#x;',
    '&#0;',
    '&#x110000;',
    '&#xD800;',
    '&#xDFFF;',
    '&#55296;',
    '&#12a;',
    '&#1a1;', // hex digits in a decimal reference
    '&#x1g1;',
    '&ampx', // no semicolon at all
    'Xamp; here',
    '&#x12g;',
    '&#-5;',
    '&unknown;',
    '&toString;',
    '&__proto__;',
    '&AMP;',
    '&verylongname;',
    '&#000000065;', // 11 characters from & to ; is past the look-ahead
  ])('%j is kept as written', (text) => {
    expect(decodeEntities(text)).toBe(text);
  });

  it('decodes a reference whose ; is exactly 10 characters after the &', () => {
    expect(decodeEntities('&#00000065;')).toBe('A');
  });

  it('decodes runs of references, and many ampersands before one semicolon', () => {
    expect(decodeEntities('&amp;&amp;&amp;')).toBe('&&&');
    expect(decodeEntities('R&&&D &&amp; Co&;')).toBe('R&&&D && Co&;');
    expect(decodeEntities('&&&&&&&&&&&&lt;')).toBe('&&&&&&&&&&&<');
  });

  it('with keepAngles, only &lt; and &gt; stay encoded', () => {
    expect(decodeEntities('&lt;b&gt; &amp; &#65;&quot;', true)).toBe('&lt;b&gt; & A"');
    expect(decodeEntities('&#60;b&#x3E;', true)).toBe('&#60;b&#x3E;');
  });

  it('decodes the surrogate neighbours and keeps going after a bad reference', () => {
    expect(decodeEntities('&#xD7FF;&#xE000;')).toBe('\ud7ff\ue000');
    expect(decodeEntities('&bogus; &amp; &#x41;')).toBe('&bogus; & A');
  });
});

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

describe("Teams' escaped angle brackets", () => {
  it('&lt;Thursday&gt; stays words in the converted SRT, not a tag that is stripped', () => {
    const vtt =
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz>Let us meet &lt;Thursday&gt; at ten.</v>\n';
    const r = importTranscript(vtt, { source: 'teams-vtt', speakers: { 'Ana Ruiz': 'a@x.io' } });
    const [cue] = parseTranscript(r.srt).cues;
    expect(cue?.text).toContain('Thursday');
    expect(r.srt).toContain('&lt;Thursday&gt;');
  });

  it('beside escaped brackets that stay, other references are decoded', () => {
    const vtt =
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz>&lt;Thursday&gt; &amp; Friday&#33;</v>\n';
    const r = importTranscript(vtt, { source: 'teams-vtt', speakers: { 'Ana Ruiz': 'a@x.io' } });
    expect(r.srt).toContain('a@x.io: &lt;Thursday&gt; & Friday!\n');
  });

  it('other entities are still decoded, and markup is still stripped', () => {
    const vtt =
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz><i>Q&amp;A</i> at 2 &lt; 3 &gt; 1</v>\n';
    const r = importTranscript(vtt, { source: 'teams-vtt', speakers: { 'Ana Ruiz': 'a@x.io' } });
    expect(parseTranscript(r.srt).cues[0]?.text).toBe('Q&A at 2 < 3 > 1');
  });
});

describe('SRT imports keep character references as written', () => {
  it('keeps the lines after the label line and leaves entities alone', () => {
    const r = imp('1\n00:00:01,000 --> 00:00:02,000\nAna Ruiz: Tom &amp; Jerry\nsecond\n', 'srt');
    expect(cues(r)).toEqual([[1000, 'a@x.io', 'Tom &amp; Jerry\nsecond']]);
  });
});
