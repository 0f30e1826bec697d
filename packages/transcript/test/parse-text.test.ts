import { parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// How a cue's text is assembled from its lines, whatever the line endings, labels and markup.

const T = '00:00:01,000 --> 00:00:02,000';

describe('cue text', () => {
  it('joins a cue’s lines with LF whatever the line endings, label cut from the first', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = ['1', T, 'rep@acme.com: one', 'two', 'three', '', '2', T, 'solo', ''].join(eol);
      const p = parseTranscript(text);
      expect(p.cues.map((c) => [c.label, c.text, c.lines])).toEqual([
        ['rep@acme.com', 'one\ntwo\nthree', ['rep@acme.com: one', 'two', 'three']],
        [null, 'solo', ['solo']],
      ]);
    }
  });

  it('strips markup from the joined text and keeps the lines as written', () => {
    const p = parseTranscript(`1\n${T}\n<i>one</i>\n{\\an8}two\n\n2\n${T}\nplain <3 text`);
    expect(p.cues.map((c) => [c.text, c.lines])).toEqual([
      ['one\ntwo', ['<i>one</i>', '{\\an8}two']],
      ['plain <3 text', ['plain <3 text']],
    ]);
  });

  it('finds markup in a later cue after an earlier cue had none, and none after the last tag', () => {
    const p = parseTranscript(
      `1\n${T}\nfirst\n\n2\n${T}\n<b>second</b>\n\n3\n${T}\nthird {x}\n\n4\n${T}\nfourth {\\i1}x`,
    );
    expect(p.cues.map((c) => c.text)).toEqual(['first', 'second', 'third {x}', 'fourth x']);
    expect(p.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['markup_stripped', 7],
      ['markup_stripped', 15],
    ]);
  });

  it('tells labels of similar speakers apart', () => {
    const p = parseTranscript(
      `1\n${T}\nann@x.io: a\n\n2\n${T}\nanna@x.io: b\n\n3\n${T}\nann@x.io: c\n\n4\n${T}\nann@x.io:d`,
    );
    expect(p.cues.map((c) => [c.label, c.text])).toEqual([
      ['ann@x.io', 'a'],
      ['anna@x.io', 'b'],
      ['ann@x.io', 'c'],
      [null, 'ann@x.io:d'],
    ]);
  });
});
