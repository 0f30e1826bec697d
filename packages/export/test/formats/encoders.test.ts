import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { columnsOf, SESSION_ITEM_COLUMNS } from '../../src/formats/columns.js';
import {
  type ApiRecord,
  BOM,
  csvEncoder,
  jsonlEncoder,
  sessionItemsEncoder,
} from '../../src/formats/encoders.js';

const session: ApiRecord = {
  id: '0b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01',
  createdAt: '2026-01-05T09:00:00Z',
  lastUpdatedAt: '2026-01-05T09:01:00Z',
  learnerUserId: '1b8f5d0e-3c1a-4f59-9d5e-2a7b6c8d9e01',
  transcript: 'line one\r\nline "two", with comma\n=cmd',
  language: 'de',
  completed: false,
  analysis: {
    score: 42.5,
    items: [
      {
        name: '=HYPERLINK("x")',
        solved: 'solved',
        explanation: null,
        suggestion: 'Ask, then listen',
        itemScore: -2,
      },
      {
        name: 'Zusammenfassung',
        solved: 'notSolved',
        explanation: 'ü',
        suggestion: null,
        itemScore: 0,
      },
    ],
  },
  participantUserIds: ['a', 'b'],
};

function parseCsv(text: string): string[][] {
  return parse(text, { bom: true, relax_column_count: false }) as string[][];
}

describe('JSONL encoder', () => {
  it('writes each record unchanged on its own line, \\n-terminated, no BOM', () => {
    const text = jsonlEncoder().encode([session, { id: 'x', note: 'a\nb' }]);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.startsWith(BOM)).toBe(false);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual(session);
    expect(JSON.parse(lines[1]!)).toEqual({ id: 'x', note: 'a\nb' });
  });
});

describe('CSV encoder', () => {
  const columns = columnsOf('real-call-sessions');

  it('writes the schema header, CRLF records, and round-trips through an RFC 4180 parser', () => {
    const enc = csvEncoder(columns, { raw: true, bom: false });
    const text = enc.preamble + enc.encode([session]);
    expect(text.startsWith('id,createdAt,lastUpdatedAt,learnerUserId,transcript,')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, row] = parseCsv(text);
    expect(header).toEqual([...columns]);
    const cell = (name: string) => row![header!.indexOf(name)];
    expect(cell('transcript')).toBe(session.transcript);
    expect(cell('analysis.score')).toBe('42.5');
    expect(cell('completed')).toBe('false');
    expect(JSON.parse(cell('analysis.items')!)).toEqual(
      (session.analysis as { items: unknown }).items,
    );
    expect(JSON.parse(cell('participantUserIds')!)).toEqual(['a', 'b']);
    // Optional property absent from the record: an empty cell, the column still there.
    expect(cell('missionId')).toBe('');
  });

  it('quotes a lone LF or CR inside a cell (not only CRLF)', () => {
    const enc = csvEncoder(['id', 'name'], { raw: true, bom: false });
    expect(enc.encode([{ id: '1', name: 'a\nb' }])).toBe('1,"a\nb"\r\n');
    expect(enc.encode([{ id: '1', name: 'a\rb' }])).toBe('1,"a\rb"\r\n');
    expect(enc.encode([{ id: '1', name: 'say "hi", ok' }])).toBe('1,"say ""hi"", ok"\r\n');
  });

  it('neutralises formula cells by default and not with raw', () => {
    const record = { id: '1', name: '=HYPERLINK("http://evil","x")' };
    expect(csvEncoder(['id', 'name'], { raw: false, bom: false }).encode([record])).toBe(
      `1,"'=HYPERLINK(""http://evil"",""x"")"\r\n`,
    );
    expect(csvEncoder(['id', 'name'], { raw: true, bom: false }).encode([record])).toBe(
      `1,"=HYPERLINK(""http://evil"",""x"")"\r\n`,
    );
  });

  it('starts with a UTF-8 BOM only with --bom', () => {
    expect(csvEncoder(['id'], { raw: false, bom: true }).preamble).toBe(`${BOM}id\r\n`);
    expect(csvEncoder(['id'], { raw: false, bom: false }).preamble).toBe('id\r\n');
  });

  it('writes null as an empty cell and numbers unchanged', () => {
    const enc = csvEncoder(['id', 'a', 'b', 'c'], { raw: false, bom: false });
    expect(enc.encode([{ id: 'x', a: null, b: -2, c: 0.1 }])).toBe('x,,-2,0.1\r\n');
  });
});

describe('real-call session items child table', () => {
  it('writes one row per analysis item keyed by sessionId and itemIndex', () => {
    const enc = sessionItemsEncoder({ raw: false, bom: false });
    const [header, ...rows] = parseCsv(
      enc.preamble +
        enc.encode([session, { ...session, id: 'empty', analysis: { score: 0, items: [] } }]),
    );
    expect(header).toEqual([...SESSION_ITEM_COLUMNS]);
    expect(rows).toEqual([
      [session.id, '0', `'=HYPERLINK("x")`, 'solved', '', 'Ask, then listen', '-2'],
      [session.id, '1', 'Zusammenfassung', 'notSolved', 'ü', '', '0'],
    ]);
  });
});
