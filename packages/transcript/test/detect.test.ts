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

describe('detectSource: broken JSON and the WebVTT header', () => {
  it('reads text that starts like JSON but is not JSON by its lines', () => {
    expect(detectSource('{"speakerId": ')).toBe('plain');
    expect(detectSource('[1\n00:00:01,000 --> 00:00:02,000\nhi\n')).toBe('srt');
  });

  it('finds the WEBVTT header after blank lines and spaces, with a title after it', () => {
    const cue = '\n\n00:00:01.000 --> 00:00:02.000\nhello\n';
    expect(detectSource(`\n  WEBVTT${cue}`)).toBe('webvtt');
    expect(detectSource(`WEBVTT - Weekly sync${cue}`)).toBe('webvtt');
    expect(detectSource(`Weekly sync WEBVTT${cue}`)).toBe('srt');
  });

  it('counts voices and names on the first line of a cue only', () => {
    const notes = 'WEBVTT\n\nNOTE\nAnn: a note\n<v Ben>voice in a note\n\n';
    expect(detectSource(`${notes}00:00:01.000 --> 00:00:02.000\nhello\n`)).toBe('webvtt');
    expect(detectSource(`${notes}00:00:01.000 --> 00:00:02.000\nAnn: hello\n`)).toBe('zoom-vtt');
    expect(detectSource(`${notes}00:00:01.000 --> 00:00:02.000\n<v Ann>hello\n`)).toBe('teams-vtt');
  });
});

describe('detectSource: weighing the shapes of meeting-tool text', () => {
  const teams = 'Ana Ruiz   0:03\nhello\n';
  const otter = 'Ben Okafor  0:05\nhi\n';
  const chat = '10:00:00 From Ana Ruiz : hi\n';

  it('three spaces before the time are Teams, two are Otter; a tie goes to Teams', () => {
    expect(detectSource(teams)).toBe('teams-docx');
    expect(detectSource(otter)).toBe('otter-txt');
    expect(detectSource(teams + otter)).toBe('teams-docx');
    expect(detectSource(teams + otter + otter)).toBe('otter-txt');
  });

  it("a Teams title or Otter's footer (spaces around it allowed) outweighs headers", () => {
    expect(detectSource(`Weekly sync-Meeting Transcript\n${otter}${otter}`)).toBe('teams-docx');
    expect(detectSource(`${teams}${teams}  Transcribed by https://otter.ai  \n`)).toBe('otter-txt');
    expect(detectSource(`${teams}${teams}Transcribed by https://otter.ai.com\n`)).toBe(
      'teams-docx',
    );
  });

  it('chat lines win over as many headers or fewer, not over more', () => {
    expect(detectSource(chat)).toBe('zoom-txt');
    expect(detectSource(chat + otter)).toBe('zoom-txt');
    expect(detectSource(chat + otter + otter)).toBe('otter-txt');
    expect(detectSource(chat + teams + teams)).toBe('teams-docx');
  });

  it('Google Meet needs two of its marks: header lines, footer, HH:MM:SS markers', () => {
    expect(detectSource('Attendees\nAna Ruiz, Ben Okafor\n')).toBe('plain');
    expect(detectSource('Attendees\nMeeting ended after 00:30:00\n')).toBe('meet-txt');
    expect(detectSource('Weekly (2024-01-01) - Transcript\nAttendees\n')).toBe('meet-txt');
    expect(detectSource('Ana: hi\n00:05:00\nBen: ho\n')).toBe('plain');
    expect(detectSource('00:00:05\nAna: hi\n00:05:00\nBen: ho\n')).toBe('meet-txt');
    expect(detectSource('We met at Attendees\nMeeting ended early\n')).toBe('plain');
    // Blank lines are no marks.
    expect(detectSource('hello\n\n\nthere\n\n')).toBe('plain');
  });

  it('SRT timing lines win; mostly unpadded ones are the legacy Teams layout', () => {
    const srt = '00:00:01,000 --> 00:00:02,000\nhi\n';
    const legacy = '0:0:4.520 --> 0:0:6.100\nhi\n';
    expect(detectSource(teams + srt)).toBe('srt');
    expect(detectSource(legacy + srt)).toBe('srt');
    expect(detectSource(legacy + legacy + srt)).toBe('teams-docx-legacy');
  });
});

describe('detectSource: voice spans', () => {
  it('takes a bare <v> span as a Teams voice', () => {
    expect(detectSource('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v>hi\n')).toBe('teams-vtt');
    expect(detectSource('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<vi>hi\n')).toBe('webvtt');
  });
});
