import {
  decodeTranscriptBytes,
  detectSource,
  importTranscript,
  parseTranscript,
  repSpeaks,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { readFixture } from './fixtures.js';

const read = (name: string) => {
  const d = decodeTranscriptBytes(readFixture(`synthetic/meeting/${name}`));
  if ('error' in d) throw new Error(d.error.message);
  return d.text;
};

const SOURCES: [string, string][] = [
  ['zoom-cloud-transcript.vtt', 'zoom-vtt'],
  ['teams-transcript.vtt', 'teams-vtt'],
  ['teams-docx-current.txt', 'teams-docx'],
  ['teams-docx-legacy.txt', 'teams-docx-legacy'],
  ['google-meet-transcript.txt', 'meet-txt'],
  ['otter-export.txt', 'otter-txt'],
  ['otter-export-speakers.srt', 'srt'],
  ['zoom-chat-one-line.txt', 'zoom-txt'],
  ['zoom-chat-cloud-elapsed.txt', 'zoom-txt'],
  ['fireflies-api-sentences.json', 'fireflies-json'],
  ['gong-api-transcript.json', 'gong-json'],
];

describe('detectSource', () => {
  for (const [file, source] of SOURCES) {
    it(`${file} → ${source}`, () => {
      // Content decides; the file name is not needed.
      expect(detectSource(read(file))).toBe(source);
    });
  }

  it('plain WebVTT without speakers, SRT, and plain text', () => {
    expect(detectSource('WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n')).toBe('webvtt');
    expect(detectSource('1\n00:00:00,000 --> 00:00:01,000\nhi\n')).toBe('srt');
    expect(detectSource('Client: hello\nAgent: hi\n')).toBe('plain');
    expect(detectSource('')).toBe('plain');
    // Odd arguments from untyped callers are tolerated, never thrown on.
    expect(detectSource(42 as never, 42 as never)).toBe('plain');
    expect(detectSource('WEBVTT\n', { name: 'x' } as never)).toBe('webvtt');
  });
});

describe('importTranscript', () => {
  it('maps Teams voice names (with commas and entities) to e-mails, case-insensitively', () => {
    const r = importTranscript(read('teams-transcript.vtt'), {
      speakers: {
        'ruiz, ana (contoso)': 'ana@contoso.com',
        'Ben Okafor': 'ben@contoso.com',
        'María López': 'maria@contoso.com',
      },
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.speakers).toEqual([
      { name: 'Ruiz, Ana (Contoso)', email: 'ana@contoso.com', cueCount: 2 },
      { name: 'Ben Okafor', email: 'ben@contoso.com', cueCount: 1 },
      { name: 'María López', email: 'maria@contoso.com', cueCount: 1 },
    ]);
    const p = parseTranscript(r.srt);
    expect(p.format).toBe('labeled-srt');
    expect(p.cues.map((c) => [c.label, c.text])).toEqual([
      ['ana@contoso.com', "Let's start with the quarterly numbers,"],
      ['ana@contoso.com', 'then open questions.'],
      ['ben@contoso.com', 'Sounds good.'],
      ['maria@contoso.com', 'A wrapped cue\nwithout a closing tag'],
    ]);
    expect(p.cues[0]).toMatchObject({ startMs: 3480, endMs: 7920 });
  });

  it('reports every unmapped speaker as an error and keeps its name as a removable label (R6)', () => {
    const r = importTranscript(read('zoom-cloud-transcript.vtt'), {
      speakers: { 'Ana Ruiz': 'ana@acme.com' },
    });
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.line])).toEqual([
      ['unmapped_speaker', 'error', 8],
    ]);
    expect(r.diagnostics[0]?.message).toContain('"Ben Okafor"');
    const p = parseTranscript(r.srt);
    expect(p.cues.map((c) => [c.label, c.speaker.kind])).toEqual([
      ['ana@acme.com', 'internal'],
      ['ben okafor', 'removed'],
      [null, 'none'], // Zoom wrote no speaker for this cue
      ['ben.okafor@example.com', 'internal'], // a display name that is an e-mail maps to itself
    ]);
    expect(repSpeaks(p, 'ANA@acme.com')).toBe(true);
  });

  it('Otter and Teams docx text: header times become starts, ends are estimated up to the next turn', () => {
    const r = importTranscript(read('otter-export.txt'), {
      speakers: {
        'Ana Ruiz': 'ana@acme.com',
        'Ben Okafor': 'ben@acme.com',
        'Speaker 3': 'c@acme.com',
      },
    });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['skipped_line', 'timing_estimated']);
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label])).toEqual([
      [2000, 4000, 'ana@acme.com'], // 5 words → 2 s, before the next turn at 0:06
      [6000, 8800, 'ben@acme.com'], // 7 words → 2.8 s
      [3_850_000, 3_851_200, 'c@acme.com'], // 1:04:10, 3 words → 1.2 s
    ]);
    const teams = importTranscript(read('teams-docx-current.txt'), {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(parseTranscript(teams.srt).cues.map((c) => [c.startMs, c.label, c.text])).toEqual([
      [3000, 'a@x.io', "Let's start with the quarterly numbers, then open questions."],
      [11_000, 'b@x.io', 'Sounds good.'],
      [3_765_000, 'a@x.io', 'Thanks all.'],
    ]);
    // Title, date, duration and "started/stopped transcription" are no speech.
    expect(teams.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line)).toEqual([
      1, 2, 3, 4, 15,
    ]);
  });

  it('Google Meet: skips header and footer, uses the HH:MM:SS markers as times', () => {
    const r = importTranscript(read('google-meet-transcript.txt'), {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    const cues = parseTranscript(r.srt).cues;
    expect(cues.map((c) => [c.startMs, c.label])).toEqual([
      [0, 'a@x.io'],
      [3600, 'b@x.io'],
      [300_000, 'a@x.io'],
      [301_600, 'b@x.io'],
    ]);
    expect(cues[0]?.text).toBe('Morning all. Shall we start with the open deals…');
  });

  it('Zoom chat: sender names from one-line and cloud formats; wall clock made relative', () => {
    const one = importTranscript(read('zoom-chat-one-line.txt'), {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(parseTranscript(one.srt).cues.map((c) => [c.startMs, c.label, c.text])).toEqual([
      [0, 'a@x.io', 'Slides: https://example.com/deck'],
      [29_000, 'b@x.io', 'can you share the pricing tab?'],
    ]);
    const two = importTranscript(
      '10:02:11 From Ana Ruiz to Everyone:\n\tSlides: https://example.com/deck\n\tsecond line\n10:02:40 From Ben Okafor to Ana Ruiz(Direct Message):\n\tok\n',
      { speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' } },
    );
    expect(two.source).toBe('zoom-txt');
    expect(parseTranscript(two.srt).cues.map((c) => [c.startMs, c.label, c.text])).toEqual([
      [0, 'a@x.io', 'Slides: https://example.com/deck\nsecond line'],
      [29_000, 'b@x.io', 'ok'],
    ]);
  });

  it('Zoom chat: reactions are no speech and "Replying to" quotes are left out', () => {
    const r = importTranscript(
      '10:00:00 From Ana Ruiz to Everyone:\n\tReplying to "can you share":\n\tsure, here it is\n' +
        '10:00:05 From Ben Okafor to Everyone:\n\tReacted to "sure, here it is" with 👍\n' +
        '10:00:09 From Ben Okafor : Reacted to "sure" with ❤️\n' +
        '10:00:20 From Ben Okafor to Everyone:\n\tthanks!\n',
      { speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' } },
    );
    expect(r.source).toBe('zoom-txt');
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.label, c.text])).toEqual([
      [0, 'a@x.io', 'sure, here it is'],
      [20_000, 'b@x.io', 'thanks!'],
    ]);
    expect(r.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line)).toEqual([
      2, 5, 6,
    ]);
  });

  it('Fireflies seconds and Gong milliseconds; Gong speakers are mapped by speaker id', () => {
    const ff = importTranscript(read('fireflies-api-sentences.json'), {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(parseTranscript(ff.srt).cues.map((c) => [c.startMs, c.endMs, c.label])).toEqual([
      [2140, 5870, 'a@x.io'],
      [6010, 6500, 'b@x.io'],
    ]);
    const gong = importTranscript(read('gong-api-transcript.json'), {
      speakers: { '6432345678555530067': 'a@x.io' },
    });
    expect(gong.diagnostics).toEqual([]);
    expect(parseTranscript(gong.srt).cues[0]).toMatchObject({
      startMs: 460_230,
      endMs: 462_343,
      label: 'a@x.io',
    });
  });

  it('reports bad speaker-map e-mails, broken JSON, unknown sources and empty input', () => {
    expect(
      importTranscript('Ana: hi', { speakers: { Ana: 'not-an-email' } }).diagnostics.map(
        (d) => d.code,
      ),
    ).toEqual(['invalid_speaker_email', 'timing_estimated', 'unmapped_speaker']);
    expect(
      importTranscript('{"sentences": [', { source: 'fireflies-json' }).diagnostics.map(
        (d) => d.code,
      ),
    ).toEqual(['invalid_json', 'no_speech']);
    const unknown = importTranscript('hi there', { source: 'docx' as never });
    expect(unknown.diagnostics[0]).toMatchObject({ code: 'unknown_source', severity: 'error' });
    expect(importTranscript('').diagnostics.map((d) => d.code)).toEqual(['no_speech']);
  });

  it('warns when a turn would read differently as SRT (label-like start, timing-like line)', () => {
    const json = JSON.stringify({
      sentences: [
        { speaker_name: null, text: 'Note: nobody said this', start_time: 0, end_time: 1 },
        {
          speaker_name: 'Ana',
          text: 'see\n00:00:05,000 --> 00:00:06,000',
          start_time: 1,
          end_time: 2,
        },
      ],
    });
    const r = importTranscript(json, { speakers: { Ana: 'a@x.io' } });
    expect(r.source).toBe('fireflies-json');
    expect(r.diagnostics.map((d) => d.code)).toEqual([
      'text_looks_like_label',
      'text_looks_like_timing',
    ]);
  });

  it('SRT with name labels (Otter SRT export) is mapped like the others', () => {
    const r = importTranscript(read('otter-export-speakers.srt'), {
      speakers: { 'ana ruiz': 'a@x.io', 'BEN OKAFOR': 'b@x.io' },
    });
    expect(r.diagnostics).toEqual([]);
    expect(parseTranscript(r.srt).cues.map((c) => c.label)).toEqual(['a@x.io', 'b@x.io']);
  });
});
