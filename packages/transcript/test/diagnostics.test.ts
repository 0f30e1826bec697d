import { MAX_PER_CODE, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// The diagnostics list a user reads (`rcs check`): in line order, at most MAX_PER_CODE of one
// code, then one summary line per capped code that says how many were left out.

/** `count` SRT cues with no index line: one `missing_index` warning each. */
const unindexed = (count: number) =>
  Array.from({ length: count }, (_, i) => `00:00:0${i % 10},000 --> 00:00:0${i % 10},500\nhi`).join(
    '\n\n',
  );

describe('diagnostics cap (MAX_PER_CODE)', () => {
  it('lists exactly MAX_PER_CODE of one code with no summary', () => {
    const d = parseTranscript(unindexed(MAX_PER_CODE)).diagnostics;
    expect(d.filter((x) => x.code === 'missing_index')).toHaveLength(MAX_PER_CODE);
    expect(d.filter((x) => x.line === 0)).toEqual([]);
  });

  it('summarises the rest in one line that counts them, with the severity of the code', () => {
    const d = parseTranscript(unindexed(MAX_PER_CODE + 3)).diagnostics;
    const listed = d.filter((x) => x.code === 'missing_index');
    expect(listed).toHaveLength(MAX_PER_CODE + 1);
    // The listed ones are the first fifty cues' timing lines (every 3rd line), in line order.
    expect(listed.slice(0, 3).map((x) => x.line)).toEqual([1, 4, 7]);
    expect(listed[MAX_PER_CODE - 1]?.line).toBe(1 + 3 * (MAX_PER_CODE - 1));
    expect(listed[MAX_PER_CODE]).toEqual({
      code: 'missing_index',
      severity: 'warning',
      line: 0,
      message: `3 more 'missing_index' diagnostics not listed (${MAX_PER_CODE + 3} in total).`,
    });
  });

  it('gives the summary of an info code the severity info', () => {
    // One markup_stripped info per cue with markup.
    const text = Array.from(
      { length: MAX_PER_CODE + 1 },
      (_, i) => `${i + 1}\n00:00:01,000 --> 00:00:02,000\n<i>hi</i>`,
    ).join('\n\n');
    const d = parseTranscript(text).diagnostics;
    expect(d.at(-1)).toEqual({
      code: 'markup_stripped',
      severity: 'info',
      line: 0,
      message: `1 more 'markup_stripped' diagnostics not listed (${MAX_PER_CODE + 1} in total).`,
    });
  });

  it('take the severity of their own code, not of the first diagnostic listed', () => {
    const cues = Array.from(
      { length: MAX_PER_CODE + 1 },
      (_, i) => `${i + 2}\n00:00:01,000 --> 00:00:02,000\n<i>hi</i>`,
    );
    // The first cue has no index: a warning on line 1, before every markup info.
    const text = ['00:00:00,000 --> 00:00:01,000\nfirst', ...cues].join('\n\n');
    const d = parseTranscript(text).diagnostics;
    expect(d[0]).toMatchObject({ code: 'missing_index', severity: 'warning', line: 1 });
    expect(d.at(-1)).toMatchObject({ code: 'markup_stripped', severity: 'info', line: 0 });
  });

  it('puts every diagnostic in line order, whatever order they were found in', () => {
    // The NUL character (line 4) is found by a first scan, before the identifier of line 1.
    const d = parseTranscript('x\n00:00:01,000 --> 00:00:02,000\nhello\nbad\u0000\n').diagnostics;
    expect(d.map((x) => [x.code, x.line])).toEqual([
      ['non_numeric_index', 1],
      ['nul_character', 4],
    ]);
    const lines = parseTranscript(
      'a\u0000\n\n5\n00:00:01,000 --> 00:00:02,000\nhi\n\n00:00:02,000 --> 00:00:03,000\nho',
    ).diagnostics.map((x) => x.line);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(lines.length).toBeGreaterThan(1);
  });

  it('forgets the dropped reading entirely: plain text never reports lines "before the first cue"', () => {
    // Every line of plain text first counts as text before a cue; once no timing line is found
    // those are dropped, count included, so no summary of them appears either.
    const text = Array.from({ length: MAX_PER_CODE + 5 }, (_, i) => `line ${i} of the call`).join(
      '\n',
    );
    const p = parseTranscript(text);
    expect(p.format).toBe('plain');
    expect(p.diagnostics).toEqual([]);
  });
});
