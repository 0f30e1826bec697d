import { prevalidateUpload, TRANSCRIPT_MAX_LENGTH } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

const LABELED =
  '1\n00:00:00,000 --> 00:00:04,000\nrep@acme.com: Hello, thanks for joining today.\n\n' +
  '2\n00:00:04,000 --> 00:00:06,000\nClient: Happy to be here.\n\n' +
  '3\n00:00:06,000 --> 00:00:08,000\nbuyer@other.org: Let us talk pricing.\n';
const valid = { transcript: LABELED, meetingName: 'Discovery', email: 'rep@acme.com' };

const problems = (req: unknown, opts = {}) =>
  prevalidateUpload(req, opts).problems.map((p) => [p.status, p.code, p.field ?? null]);

describe('prevalidateUpload', () => {
  it('passes a valid upload and reports speakers, removed labels, rep and KPIs', () => {
    const r = prevalidateUpload(valid, { emailDomains: ['acme.com'] });
    expect(r.ok).toBe(true);
    expect(r.problems).toEqual([]);
    expect(r.report).toMatchObject({
      format: 'labeled-srt',
      cueCount: 3,
      repSpeaks: true,
      removedLabels: [{ label: 'client', line: 7 }],
      speakers: [
        {
          label: 'rep@acme.com',
          kind: 'internal',
          email: 'rep@acme.com',
          firstLine: 3,
          cueCount: 1,
        },
        { label: 'client', kind: 'removed', firstLine: 7, cueCount: 1 },
        {
          label: 'buyer@other.org',
          kind: 'external',
          email: 'buyer@other.org',
          firstLine: 11,
          cueCount: 1,
        },
      ],
      // rep 4 s of 8 s; 5 words in 4 s = 75 wpm.
      kpis: { listenRatio: 0.5, longestMonologue: 4, talkSpeed: 75 },
    });
  });

  it('rejects a speaker-labeled transcript in which the rep never speaks (rule 8, D14) with 422', () => {
    const r = prevalidateUpload({ ...valid, email: 'Other@Acme.com' });
    expect(r.ok).toBe(false);
    expect(r.problems).toMatchObject([
      { status: 422, code: 'rep_not_in_transcript', field: 'transcript' },
    ]);
    expect(r.problems[0]?.message).toContain('other@acme.com');
    expect(r.report.repSpeaks).toBe(false);
  });

  it('compares the rep e-mail case-insensitively (D6) and uses repEmail for a userId upload', () => {
    expect(prevalidateUpload({ ...valid, email: 'REP@acme.COM' }).ok).toBe(true);
    const byId = {
      transcript: LABELED,
      meetingName: 'x',
      userId: '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11',
    };
    expect(prevalidateUpload(byId).report.repSpeaks).toBeNull();
    expect(problems(byId, { repEmail: 'nobody@acme.com' })).toEqual([
      [422, 'rep_not_in_transcript', 'transcript'],
    ]);
    expect(prevalidateUpload(byId, { repEmail: 'rep@acme.com' }).ok).toBe(true);
  });

  it('never applies rule 8 to plain text or SRT without e-mail labels (D14)', () => {
    const plain = {
      ...valid,
      transcript: 'Client: hello there, how are you?',
      email: 'x@acme.com',
    };
    expect(prevalidateUpload(plain).ok).toBe(true);
    expect(prevalidateUpload(plain).report.repSpeaks).toBeNull();
    const srt = {
      ...valid,
      transcript: '1\n00:00:00,000 --> 00:00:01,000\nAgent: hello\n',
      email: 'x@acme.com',
    };
    expect(prevalidateUpload(srt).ok).toBe(true);
  });

  it('counts lengths conservatively (D17): UTF-16 units for the maximum, code points for the minimum', () => {
    const emoji = '😀'; // 1 code point, 2 UTF-16 units
    const atMax = { ...valid, transcript: 'a'.repeat(TRANSCRIPT_MAX_LENGTH) };
    expect(problems(atMax)).toEqual([]);
    const over = { ...valid, transcript: `${'a'.repeat(TRANSCRIPT_MAX_LENGTH - 1)}${emoji}` };
    expect(problems(over)).toEqual([[400, 'validation_failed', 'transcript']]);
    expect(prevalidateUpload(over).problems[0]?.message).toMatch(
      /too long: 100,001 characters \(emoji/,
    );
    expect(problems({ ...valid, transcript: emoji.repeat(9) })).toEqual([
      [400, 'validation_failed', 'transcript'],
    ]);
    expect(problems({ ...valid, transcript: emoji.repeat(10) })).toEqual([]);
  });

  it('requires exactly one of userId or email (D5)', () => {
    const { email: _e, ...neither } = valid;
    expect(problems(neither)).toEqual([[400, 'validation_failed', null]]);
    const both = { ...valid, userId: '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11' };
    expect(problems(both)).toEqual([[400, 'validation_failed', null]]);
  });

  it('checks the description patterns verbatim (e-mail, 24-hex ids) and D25 UUIDs', () => {
    expect(problems({ ...valid, email: ' rep@acme.com' })).toContainEqual([
      400,
      'validation_failed',
      'email',
    ]);
    expect(problems({ ...valid, email: '.rep@acme.com' })).toContainEqual([
      400,
      'validation_failed',
      'email',
    ]);
    expect(problems({ ...valid, email: 'r..ep@acme.com' })).toContainEqual([
      400,
      'validation_failed',
      'email',
    ]);
    const { email: _e, ...noEmail } = valid;
    // D25: any version and variant is a UUID (version digit 9 here); dashes in the wrong place are not.
    expect(problems({ ...noEmail, userId: '4f1c2a9e-0d3b-9c55-9a8e-2b7d6e1f0a11' })).toEqual([]);
    expect(problems({ ...noEmail, userId: '4f1c2a9e0-d3b-4c55-9a8e-2b7d6e1f0a11' })).toEqual([
      [400, 'validation_failed', 'userId'],
    ]);
    expect(problems({ ...valid, missionId: 'ABCDEF0123456789abcdef01' })).toEqual([
      [400, 'validation_failed', 'missionId'],
    ]);
    expect(problems({ ...valid, scorecardId: 'abcdef0123456789abcdef0' })).toEqual([
      [400, 'validation_failed', 'scorecardId'],
    ]);
    expect(
      problems({
        ...valid,
        missionId: 'abcdef0123456789abcdef01',
        scorecardId: '0123456789abcdef01234567',
      }),
    ).toEqual([]);
  });

  it('names wrong types, missing and unknown fields (D2), and never throws on odd input', () => {
    expect(problems({ ...valid, emial: 'x' })).toEqual([[400, 'validation_failed', 'emial']]);
    expect(problems({ transcript: 42, meetingName: '', email: 'rep@acme.com' })).toEqual([
      [400, 'validation_failed', 'transcript'],
      [400, 'validation_failed', 'meetingName'],
    ]);
    expect(prevalidateUpload({ ...valid, transcript: 42 }).problems[0]?.message).toBe(
      'transcript must be a string, got number.',
    );
    for (const odd of [null, undefined, 'text', 42, [], [valid]]) {
      const r = prevalidateUpload(odd);
      expect(r.ok).toBe(false);
      expect(r.problems[0]?.message).toMatch(/JSON object/);
    }
  });

  it('puts 400 problems before 422 ones (D3 order)', () => {
    const r = prevalidateUpload({ ...valid, email: 'other@acme.com', meetingName: '' });
    expect(r.problems.map((p) => p.status)).toEqual([400, 422]);
  });

  it('reports parse errors (NUL characters) as warnings with a line, not as a predicted 400', () => {
    // The service (and the mock) accept any string of the right length: predicting a 400 here
    // would make the CLI refuse what the API takes.
    const r = prevalidateUpload({ ...valid, transcript: `${LABELED}\n\u0000\u0000` });
    expect(r.ok).toBe(true);
    expect(r.problems).toEqual([]);
    expect(r.warnings).toMatchObject([{ field: 'transcript', line: 13 }]);
    expect(r.warnings[0]?.message).toMatch(/NUL characters/);
    expect(r.report.diagnostics.map((d) => d.code)).toContain('nul_character');
    expect(prevalidateUpload(valid).warnings).toEqual([]);
  });
});
