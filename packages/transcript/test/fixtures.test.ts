// Every file in the shared fixtures (external/ and synthetic/) is read here. Each has our result
// checked in beside this test (test/expected/<path>.expected.txt: JSON, not named .json so the formatter
// leaves it byte-stable; written by vitest file snapshots and
// reviewed), and each is compared with the team's EXPECTED.json reading: our `lines` joined must
// equal its cue text (its policy keeps labels and tags in the text; our `text` takes them out on
// purpose, see parse.test.ts). Where we deliberately read a file differently, DEVIATIONS says why.
import {
  type Cue,
  decodeTranscriptBytes,
  importTranscript,
  parseTranscript,
  parseWebVtt,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { EXPECTED, type ExpectedCue, listFixtures, readFixture } from './fixtures.js';

const DEVIATIONS: Record<string, string> = {
  'external/cdown-srt/gb2312-encoding-nonsequential.srt':
    'GB2312 bytes are not UTF-8: we reject the file (invalid_utf8) instead of guessing a code page, because a guessed decoding silently changes names and e-mail labels (R4).',
  'synthetic/invalid-utf8-bytes.srt':
    'Invalid UTF-8: rejected with invalid_utf8 (line and byte offset) rather than read with replacement characters.',
  'synthetic/windows-1252-encoding.srt':
    'cp1252 bytes: rejected with invalid_utf8; the CLI tells the user to re-save as UTF-8.',
};

/** EXPECTED.json trims trailing spaces of text lines; our `lines` keep them as written. */
function asExpected(cues: Cue[]): ExpectedCue[] {
  return cues.map((c) => ({
    id: c.id,
    start: c.startMs ?? 0,
    end: c.endMs ?? 0,
    text: c.lines.map((l) => l.trimEnd()).join('\n'),
  }));
}

function snapshotOf(cues: Cue[]) {
  return cues.map((c) => ({
    id: c.id,
    line: c.line,
    startMs: c.startMs,
    endMs: c.endMs,
    lines: c.lines,
    label: c.label,
    text: c.text,
    speaker: c.speaker,
  }));
}

const files = listFixtures().filter((f) => !f.endsWith('.md'));

describe('shared transcript fixtures', () => {
  it('covers every fixture file, and EXPECTED.json lists no file we skip', () => {
    expect(files.length).toBeGreaterThanOrEqual(79);
    for (const key of Object.keys(EXPECTED)) expect(files).toContain(key);
  });

  for (const file of files) {
    it(file, async () => {
      const decoded = decodeTranscriptBytes(readFixture(file));
      const expected = EXPECTED[file];
      if ('error' in decoded) {
        expect(DEVIATIONS[file], `unexpected decode error ${decoded.error.code}`).toBeDefined();
        expect(decoded.error.code).toBe('invalid_utf8');
        expect(decoded.error.message).toMatch(/UTF-8/);
        await expect(json({ error: decoded.error })).toMatchFileSnapshot(
          `expected/${file}.expected.txt`,
        );
        return;
      }
      expect(DEVIATIONS[file]).toBeUndefined();

      if (file.includes('/meeting/') && !file.endsWith('.srt') && !file.endsWith('.vtt')) {
        // Meeting-tool text and JSON: importer output (import.test.ts checks the rules).
        const r = importTranscript(decoded.text, { fileName: file, speakers: MEETING_SPEAKERS });
        await expect(
          json({
            source: r.source,
            speakers: r.speakers,
            srt: r.srt,
            diagnostics: codes(r.diagnostics),
          }),
        ).toMatchFileSnapshot(`expected/${file}.expected.txt`);
        expect(parseTranscript(r.srt).format).toBe('labeled-srt');
        return;
      }

      const parsed = file.endsWith('.vtt')
        ? { format: 'webvtt', ...parseWebVtt(decoded.text) }
        : parseTranscript(decoded.text);
      await expect(
        json({
          format: parsed.format,
          cues: snapshotOf(parsed.cues),
          diagnostics: codes(parsed.diagnostics),
        }),
      ).toMatchFileSnapshot(`expected/${file}.expected.txt`);

      if (expected === undefined) return;
      if (expected.format === 'plain') {
        // EXPECTED.json's policy is a subtitle parser's (0 cues). Ours is the service's D11: no
        // timing line = plain text, one cue per non-blank line, no timing, no labels.
        expect(parsed.format).toBe('plain');
        expect(parsed.cues.every((c) => c.startMs === null && c.label === null)).toBe(true);
        return;
      }
      const got = asExpected(parsed.cues);
      if (expected.cues.length === 0) {
        // Empty, BOM-only and header-only files: no cues. Files with text but no timing line
        // ('1', 'some text'), which subtitle parsers reject, are plain text under D11: the service
        // accepts them as such, so we read them as plain cues instead of rejecting them.
        if (parsed.format === 'plain' && parsed.cues.length > 0) {
          expect(expected.accept).toContain('reject');
          expect(parsed.cues.every((c) => c.startMs === null)).toBe(true);
        } else expect(got).toEqual([]);
        return;
      }
      const readings = [expected.cues, ...expected.alt.map((a) => a.cues)];
      expect(readings).toContainEqual(got);
    });
  }
});

const MEETING_SPEAKERS = {
  'Ana Ruiz': 'ana.ruiz@example.com',
  'Ruiz, Ana': 'ana.ruiz@example.com',
  'Ruiz, Ana (Contoso)': 'ana.ruiz@example.com',
  'Ben Okafor': 'ben.okafor@example.com',
  'María López': 'maria.lopez@example.com',
  'Speaker 3': 'carla@example.com',
  '6432345678555530067': 'ana.ruiz@example.com',
};

function codes(d: { code: string; line: number; severity: string }[]): string[] {
  return d.map((x) => `${x.severity} ${x.code} @${x.line}`);
}

/** Expected files are plain JSON, so they read (and diff) well outside vitest. */
function json(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}
