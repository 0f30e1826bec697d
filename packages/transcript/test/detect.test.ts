import { detectSource } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// detectSource at the edges of each shape (FORMATS.md §7): what makes a JSON export Gong or
// Fireflies, where the file name breaks a tie, and how far into the file it looks.

const VOICE_CUE = '00:00:01.000 --> 00:00:02.000\n<v Ann Lee>Hello there\n';

describe('detectSource: JSON exports', () => {
  it('needs both "speaker_name" and "sentences" for Fireflies', () => {
    expect(detectSource('{"sentences":[{"speaker_name":"Ann","text":"hi"}]}')).toBe(
      'fireflies-json',
    );
    expect(detectSource('{"speaker_name":"Ann","text":"hi"}')).toBe('plain');
    expect(detectSource('{"sentences":[{"text":"hi"}]}')).toBe('plain');
  });

  it('takes either "callTranscripts" or "speakerId" as Gong', () => {
    expect(detectSource('{"callTranscripts":[]}')).toBe('gong-json');
    expect(detectSource('[{"speakerId":"7","sentences":[]}]')).toBe('gong-json');
    expect(detectSource('{"calls":[],"speaker":"7"}')).toBe('plain');
  });

  it('reads JSON after leading blank lines and spaces', () => {
    expect(detectSource('\n\n   {"callTranscripts":[]}')).toBe('gong-json');
    expect(detectSource('\uFEFF  [{"speakerId":1}]')).toBe('gong-json');
  });

  it('looks at the first 4 KiB of the JSON only', () => {
    const pad = 'x'.repeat(4096);
    expect(detectSource(`{"pad":"${pad}","speakerId":1}`)).toBe('plain');
    expect(detectSource(`{"speakerId":1,"pad":"${pad}"}`)).toBe('gong-json');
  });
});

describe('detectSource: the file name breaks ties', () => {
  it('reads a .vtt file without the WEBVTT header as WebVTT (any case, any name)', () => {
    expect(detectSource(VOICE_CUE)).toBe('srt');
    expect(detectSource(VOICE_CUE, 'Weekly call.vtt')).toBe('teams-vtt');
    expect(detectSource(VOICE_CUE, 'C:\\calls\\MEETING.2024.VTT')).toBe('teams-vtt');
    expect(detectSource('00:00:01.000 --> 00:00:02.000\nhello\n', 'x.vtt')).toBe('webvtt');
  });

  it('uses only the extension: a name that merely contains "vtt" does not count', () => {
    expect(detectSource(VOICE_CUE, 'vtt')).toBe('srt');
    expect(detectSource(VOICE_CUE, 'notes.vtt.txt')).toBe('srt');
  });
});

describe('detectSource: how far it looks', () => {
  it('sniffs the first 200 lines', () => {
    const filler = (n: number) => 'just talking here\n'.repeat(n);
    const cue = '1\n00:00:01,000 --> 00:00:02,000\nhi\n';
    // The timing line is line 199 (inside) or 201 (outside).
    expect(detectSource(filler(197) + cue)).toBe('srt');
    expect(detectSource(filler(199) + cue)).toBe('plain');
  });
});
