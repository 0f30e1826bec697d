/**
 * The shared synthetic transcripts through the mock over HTTP, compared with an independent,
 * literal reading of D11/D12/D16 written here from the decisions' text (not from our packages):
 * on the first content line after a timing line, the text before the first `:` is a label when
 * the colon is followed by whitespace or ends the line and the trimmed text is 1–64 characters;
 * a non-email label and its colon (and the whitespace after it) are taken out (D16).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, type Booted, boot, OPEN } from './helpers.js';

// The description's e-mail pattern, verbatim.
const EMAIL =
  /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
// D11: one or more hour digits, `,` or `.`, spaces around the arrow.
const TIMING = /^\s*\d+:\d{2}:\d{2}[,.]\d{3}\s*-->\s*\d+:\d{2}:\d{2}[,.]\d{3}/;

/** D16 by the letter: the uploaded text with non-email labels taken out. */
function expectedStored(text: string): string {
  const parts = text.split(/(\r\n|\r|\n)/);
  let firstContentLine = false;
  for (let i = 0; i < parts.length; i += 2) {
    const line = parts[i] ?? '';
    if (firstContentLine) {
      firstContentLine = false;
      const colon = line.indexOf(':');
      const after = line[colon + 1];
      const label = line.slice(0, colon).trim();
      const isLabel =
        colon >= 0 &&
        (after === undefined || /\s/.test(after)) &&
        label.length >= 1 &&
        label.length <= 64;
      if (isLabel && !EMAIL.test(label.toLowerCase())) parts[i] = line.slice(colon + 1).trimStart();
    }
    if (TIMING.test(line.replace(/^\uFEFF/, ''))) firstContentLine = true;
  }
  return parts.join('');
}

const SYNTHETIC = fileURLToPath(
  new URL('../shared/fixtures/transcripts/synthetic', import.meta.url),
);

let m: Booted;
beforeAll(async () => {
  m = await boot({
    edit: (f) => {
      f.organizations[3].users.push({
        id: 'd0000000-0000-4000-8000-000000000012',
        email: 'alice.smith@example.com',
        firstName: 'Alice',
        lastName: 'Smith',
        teamIds: [],
        createdAt: '2026-01-06T09:00:00Z',
      });
    },
  });
});
afterAll(() => m.close());

async function storedByService(text: string, body: Record<string, unknown>, key: string) {
  const c = await m.create({ transcript: text, meetingName: 'x', ...body }, { key });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  m.clock.advance(4001);
  const g = await m.get(c.body.id, { key });
  expect(g.body.state).toBe('DONE');
  return g.body;
}

describe('stored transcript of the shared synthetic files (D12, D16)', () => {
  it.each([
    'speaker-label-false-positives.srt',
    'speaker-labels-names-roles.srt',
    'speaker-labels-inside-tags.srt',
    'bom-utf8-crlf-speaker-labels.srt',
    'html-ass-tags-transcript.srt',
    'plain-text-speaker-labels.txt',
  ])('%s', async (file) => {
    const text = readFileSync(`${SYNTHETIC}/${file}`, 'utf8');
    const s = await storedByService(text, { userId: ACME.rep.id }, ACME.key);
    expect(s.call.transcript).toBe(expectedStored(text));
  });

  it('speaker-labels-email.srt: e-mail labels stay; with no configured domain every e-mail is internal, none created', async () => {
    const text = readFileSync(`${SYNTHETIC}/speaker-labels-email.srt`, 'utf8');
    const s = await storedByService(text, { email: 'Alice.Smith@example.com' }, OPEN.key);
    expect(s.call.transcript).toBe(text);
    expect(s.participantUserIds).toEqual(['d0000000-0000-4000-8000-000000000012']);
    // D21 by hand: rep 0–3.2 s and 6.3–9.9 s (6.8 s, 18 words), others 2.7 s + 2.5 s.
    expect(s.kpis.state).toBe('DONE');
    expect(s.kpis.listenRatio).toBe(0.433); // 5.2 / 12, 3 decimals
    expect(s.kpis.longestMonologue).toBeCloseTo(3.6, 1); // bob speaks between the rep's cues
    expect(s.kpis.talkSpeed).toBeCloseTo((18 / 6.8) * 60, 0);
  });

  it('the reference itself reads the false positives as the decisions say', () => {
    const out = expectedStored(
      readFileSync(`${SYNTHETIC}/speaker-label-false-positives.srt`, 'utf8'),
    );
    expect(out).toContain('10:30 works for me.');
    expect(out).toContain('https://example.com/pricing has the details.');
    expect(out).toContain(':) no problem');
    expect(out).toContain('\nat 10:30 see https://x.example/a:b');
    expect(out).toContain('\nsend the contract.');
  });
});
