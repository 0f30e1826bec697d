import { describe, expect, it } from 'vitest';
import { cues, firstLine, imp, texts } from './support/imports.js';

// Plain text ("Name: text" lines, or no names at all) imported as turns.

describe('plain text: a line without a name continues the turn before', () => {
  it('continues the previous turn with unlabeled lines (trimmed) and reports each turn’s line', () => {
    const r = imp('\nAna Ruiz: hi\n  continued  \nBob: ho\n', 'plain');
    expect(cues(r).map((c) => c.slice(1))).toEqual([
      ['a@x.io', 'hi\ncontinued'],
      ['bob', 'ho'],
    ]);
    expect(firstLine(r)).toBe(4);
    const unlabeled = imp('  just words  \nmore', 'plain');
    expect(texts(unlabeled)).toEqual(['just words\nmore']);
  });
});
