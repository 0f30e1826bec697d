import { describe, expect, it } from 'vitest';
import { isFormulaLike, neutraliseCell } from '../../src/formats/neutralise.js';

describe('formula neutralisation', () => {
  it.each([
    '=HYPERLINK("http://evil.example","click")',
    '=1+1',
    '+cmd',
    '-2+3',
    '@SUM(A1)',
    ' =x',
    '   @x',
    '\t=x',
    '\tanything',
    '\rx',
    '\nline',
    '＝1+1',
    '-',
    '+',
  ])('neutralises %j with a leading quote', (cell) => {
    expect(isFormulaLike(cell)).toBe(true);
    expect(neutraliseCell(cell)).toBe(`'${cell}`);
  });

  it.each(['-2', '+1', '3.5', '-0.25', '1e5', '-1.5E-3', '.5', '42'])(
    'leaves the plain number %j alone',
    (cell) => {
      expect(neutraliseCell(cell)).toBe(cell);
    },
  );

  it.each([
    'Ärger, "quoted" and, commas',
    'a = b',
    'x-y',
    'mail@example.com',
    '2026-01-05T09:00:00Z',
    '',
    "'already quoted",
    '中文 名字',
  ])('leaves the ordinary text %j alone', (cell) => {
    expect(neutraliseCell(cell)).toBe(cell);
  });
});
