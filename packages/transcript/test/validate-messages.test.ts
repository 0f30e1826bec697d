import {
  formatSrtTime,
  prevalidateUpload,
  repDesignatorProblem,
  rule8RepSpeaks,
  TRANSCRIPT_MAX_LENGTH,
  TRANSCRIPT_MIN_LENGTH,
  UPLOAD_FIELDS,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// What `rcs upload` / `rcs check` print: each predicted problem in full (code, status, field,
// message) and the report, at the edges of every rule of pre-validation.

const SRT =
  '1\n00:00:00,000 --> 00:00:04,000\nrep@acme.com: Hello, thanks for joining.\n\n' +
  '2\n00:00:04,000 --> 00:00:06,000\nbuyer@other.org: Happy to be here.\n';
const UUID = '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11';
const base = { transcript: SRT, meetingName: 'Discovery', email: 'rep@acme.com' };

const bad = (field: string | undefined, message: string) => ({
  code: 'validation_failed',
  status: 400,
  ...(field === undefined ? {} : { field }),
  message,
});

describe('prevalidateUpload messages', () => {
  it('names the non-object body and what it got', () => {
    expect(prevalidateUpload(null).problems[0]).toStrictEqual(
      bad(undefined, 'The request body must be a JSON object, got null.'),
    );
    expect(prevalidateUpload([base]).problems[0]).toStrictEqual(
      bad(undefined, 'The request body must be a JSON object, got an array.'),
    );
    expect(prevalidateUpload('x'.repeat(70)).problems[0]?.message).toBe(
      `The request body must be a JSON object, got "${'x'.repeat(60)}…".`,
    );
    expect(prevalidateUpload(7).problems[0]?.message).toBe(
      'The request body must be a JSON object, got number.',
    );
  });

  it('lists the allowed fields for an unknown one, and ignores fields set to undefined', () => {
    expect(prevalidateUpload({ ...base, notes: 'x' }).problems).toEqual([
      bad('notes', `Unknown field "notes" (allowed: ${UPLOAD_FIELDS.join(', ')}).`),
    ]);
    expect(UPLOAD_FIELDS.join(', ')).toBe(
      'transcript, meetingName, userId, email, missionId, scorecardId',
    );
    expect(prevalidateUpload({ ...base, notes: undefined }).problems).toEqual([]);
  });

  it('says which required field is missing', () => {
    expect(prevalidateUpload({ email: 'rep@acme.com' }).problems).toEqual([
      bad('transcript', 'transcript is required.'),
      bad('meetingName', 'meetingName is required.'),
    ]);
  });

  it('names the type of a meetingName that is not a string, and refuses an empty one', () => {
    expect(prevalidateUpload({ ...base, meetingName: 5 }).problems).toEqual([
      bad('meetingName', 'meetingName must be a string, got number.'),
    ]);
    expect(prevalidateUpload({ ...base, meetingName: null }).problems).toEqual([
      bad('meetingName', 'meetingName must be a string, got null.'),
    ]);
    expect(prevalidateUpload({ ...base, meetingName: '' }).problems).toEqual([
      bad('meetingName', 'meetingName must not be empty.'),
    ]);
    expect(prevalidateUpload({ ...base, meetingName: ' ' }).problems).toEqual([]);
  });

  it('says how long a too-long call is, in characters and time, and what to do', () => {
    // A two-hour call of 316,422 characters (the size of a real Teams export).
    const cue = (i: number) =>
      `${i + 1}\n${formatSrtTime(i * 6000)} --> ${formatSrtTime(i * 6000 + 5500)}\nrep@acme.com: ${'word '.repeat(45)}\n\n`;
    let call = '';
    for (let i = 0; call.length < 316_000; i++) call += cue(i);
    const message = prevalidateUpload({ ...base, transcript: call }).problems[0]?.message;
    expect(message).toMatch(
      /^transcript is too long: 316,\d{3} characters for a call of 1 h \d\d min, and the service takes at most 100,000\. To score it, split the call into 4 parts of about \d\d min each and upload each, or upload a shorter excerpt\.$/,
    );
    expect(message).not.toMatch(/D17|UTF-16/);
    // Without timing lines there is no duration to give; characters beyond U+FFFF count twice.
    const plain = '😀'.repeat(50_001);
    expect(prevalidateUpload({ ...base, transcript: plain }).problems[0]?.message).toBe(
      'transcript is too long: 100,002 characters (emoji and other characters beyond U+FFFF count as two), and the service takes at most 100,000. To score it, split it into 2 parts and upload each, or upload a shorter excerpt.',
    );
  });

  it.each([
    // [cue times in written order (start, end ms), the call, each of its 2 parts]
    [
      [
        [0, 29_000],
        [1_000, 2_000],
      ],
      '29 s',
      '15 s',
    ],
    [
      [
        [0, 1_000],
        [500, 89_000],
      ],
      '1 min',
      '1 min',
    ],
    [
      [
        [30_000, 40_000],
        [5_000, 6_000],
        [0, 3_545_000],
      ],
      '59 min',
      '30 min',
    ],
    [
      [
        [0, 3_570_000],
        [1_000, 2_000],
      ],
      '1 h',
      '30 min',
    ],
    [
      [
        [1_000, 2_000],
        [0, 3_900_000],
        [60_000, 61_000],
      ],
      '1 h 05 min',
      '33 min',
    ],
    [
      [
        [600_000, 601_000],
        [300_000, 4_500_000],
      ],
      '1 h 10 min',
      '35 min',
    ],
    [
      [
        [0, 1_000],
        [5_000, 9_000_000],
      ],
      '2 h 30 min',
      '1 h 15 min',
    ],
  ] as const)('a too-long call timed %j lasts %s, in parts of %s', (times, call, part) => {
    // The call runs from its earliest start to its latest end, whatever order the cues are in.
    const text = times
      .map(
        ([start, end], i) =>
          `${i + 1}\n${formatSrtTime(start)} --> ${formatSrtTime(end)}\nrep@acme.com: ${'word '.repeat(12_000)}\n`,
      )
      .join('\n');
    expect(text.length).toBeGreaterThan(TRANSCRIPT_MAX_LENGTH);
    expect(text.length).toBeLessThanOrEqual(2 * TRANSCRIPT_MAX_LENGTH);
    const message = prevalidateUpload({ ...base, transcript: text }).problems[0]?.message;
    expect(message).toContain(` for a call of ${call}, and the service`);
    expect(message).toContain(`split the call into 2 parts of about ${part} each`);
  });

  it('a cue whose timing line is broken (no times) neither starts nor ends the call', () => {
    const words = `rep@acme.com: ${'word '.repeat(12_000)}\n`;
    const broken = '00:01:00,000 -> 00:02:00,000'; // almost a timing line: a cue without times
    for (const text of [
      `1\n${broken}\n${words}\n2\n00:10:00,000 --> 00:40:00,000\n${words}`,
      `1\n00:10:00,000 --> 00:40:00,000\n${words}\n2\n${broken}\n${words}`,
    ]) {
      expect(prevalidateUpload({ ...base, transcript: text }).problems[0]?.message).toContain(
        ' for a call of 30 min, and the service',
      );
    }
  });

  it('a too-long text whose cues have no end after their start gives no duration', () => {
    const text = `1\n00:00:05,000 --> 00:00:05,000\nrep@acme.com: ${'word '.repeat(25_000)}\n`;
    expect(prevalidateUpload({ ...base, transcript: text }).problems[0]?.message).toMatch(
      /^transcript is too long: 125,\d{3} characters, and the service takes at most 100,000\. To score it, split it into 2 parts and upload each/,
    );
  });

  it('gives both lengths of a transcript that is too long or too short', () => {
    const long = `${SRT}${'a'.repeat(TRANSCRIPT_MAX_LENGTH - SRT.length + 1)}`;
    expect(prevalidateUpload({ ...base, transcript: long }).problems[0]).toStrictEqual(
      bad(
        'transcript',
        'transcript is too long: 100,001 characters for a call of 6 s, and the service takes at most 100,000. To score it, split the call into 2 parts of about 3 s each and upload each, or upload a shorter excerpt.',
      ),
    );
    const atMax = `${SRT}${'a'.repeat(TRANSCRIPT_MAX_LENGTH - SRT.length)}`;
    expect(prevalidateUpload({ ...base, transcript: atMax }).ok).toBe(true);
    const short = 'a'.repeat(TRANSCRIPT_MIN_LENGTH - 1);
    expect(prevalidateUpload({ ...base, transcript: short }).problems).toEqual([
      bad(
        'transcript',
        `transcript is too short: 9 characters, at least ${TRANSCRIPT_MIN_LENGTH}.`,
      ),
    ]);
    expect(
      prevalidateUpload({ ...base, transcript: 'a'.repeat(TRANSCRIPT_MIN_LENGTH) }).problems,
    ).toEqual([]);
  });

  it('names the rep designator problem (D5)', () => {
    const { email: _e, ...none } = base;
    // No field: the problem is the request's, and has no `field` key at all.
    expect(prevalidateUpload(none).problems).toStrictEqual([
      bad(undefined, 'Send one of userId or email to designate the rep.'),
    ]);
    expect(prevalidateUpload({ ...base, userId: UUID }).problems).toEqual([
      bad(undefined, 'Send exactly one of userId or email to designate the rep, not both.'),
    ]);
    // A field present with the value undefined is not sent in JSON.
    expect(prevalidateUpload({ ...base, userId: undefined }).problems).toEqual([]);
  });

  it('says what a patterned id must be and what it got, in field order', () => {
    const { email: _e, ...noEmail } = base;
    expect(
      prevalidateUpload({ ...noEmail, userId: 'nope', missionId: 12, scorecardId: 'ABC' }).problems,
    ).toEqual([
      bad('userId', 'userId must be a UUID (hex digits in groups 8-4-4-4-12), got "nope".'),
      bad('missionId', 'missionId must be 24 lowercase hexadecimal characters, got number.'),
      bad('scorecardId', 'scorecardId must be 24 lowercase hexadecimal characters, got "ABC".'),
    ]);
    // An array is not a string, even when its one element would match.
    expect(
      prevalidateUpload({ ...base, missionId: ['abcdef0123456789abcdef01'] }).problems,
    ).toStrictEqual([
      bad('missionId', 'missionId must be 24 lowercase hexadecimal characters, got an array.'),
    ]);
    expect(prevalidateUpload({ ...base, email: 'not an e-mail' }).problems).toEqual([
      bad('email', 'email is not a valid e-mail address: "not an e-mail".'),
    ]);
    expect(prevalidateUpload({ ...base, email: 42 }).problems).toEqual([
      bad('email', 'email is not a valid e-mail address: number.'),
    ]);
  });

  it("names the rep in rule 8's 422 and tells how to label the rep's cues", () => {
    expect(prevalidateUpload({ ...base, email: 'Boss@Acme.com' }).problems).toContainEqual({
      code: 'rep_not_in_transcript',
      status: 422,
      field: 'transcript',
      message:
        'The transcript is speaker-labeled but the rep boss@acme.com never speaks in it (a speaker-labeled transcript must have the rep speak): label the rep\'s cues "boss@acme.com: …".',
    });
  });
});

describe('prevalidateUpload: the rep of rule 8 and the report', () => {
  it('prefers a valid request e-mail over options.repEmail, and falls back when it is invalid', () => {
    const r = prevalidateUpload(base, { repEmail: 'buyer@other.org' });
    expect(r.report.repSpeaks).toBe(true);
    // With the request's rep, the rep spoke 4 of 6 s: listen ratio 0.333.
    expect(r.report.kpis.listenRatio).toBe(0.333);
    const invalid = prevalidateUpload({ ...base, email: 'x' }, { repEmail: 'buyer@other.org' });
    expect(invalid.report.repSpeaks).toBe(true);
    expect(invalid.report.kpis.listenRatio).toBe(0.667);
    expect(prevalidateUpload({ ...base, email: 'x' }).report.repSpeaks).toBeNull();
    expect(
      prevalidateUpload({ ...base, email: 'x' }, { repEmail: 7 as never }).report,
    ).toMatchObject({
      repSpeaks: null,
      kpis: { listenRatio: null, longestMonologue: null, talkSpeed: null },
    });
  });

  it('reports every KPI null without a rep, and nothing parsed without a transcript', () => {
    const { email: _e, ...noEmail } = base;
    const r = prevalidateUpload({ ...noEmail, userId: UUID });
    expect(r.report.kpis).toEqual({ listenRatio: null, longestMonologue: null, talkSpeed: null });
    expect(r.report.cueCount).toBe(2);
    const none = prevalidateUpload({ meetingName: 'x', email: 'rep@acme.com' });
    expect(none.parsed).toBeNull();
    expect(none.report).toEqual({
      format: null,
      cueCount: 0,
      speakers: [],
      removedLabels: [],
      repSpeaks: null,
      kpis: { listenRatio: null, longestMonologue: null, talkSpeed: null },
      diagnostics: [],
    });
  });

  it('classifies speakers for the given domains, and without domains every e-mail is internal', () => {
    const kinds = (opts = {}) =>
      prevalidateUpload(base, opts).report.speakers.map((s) => [s.label, s.kind]);
    expect(kinds()).toEqual([
      ['rep@acme.com', 'internal'],
      ['buyer@other.org', 'internal'],
    ]);
    expect(kinds({ emailDomains: ['acme.com'] })).toEqual([
      ['rep@acme.com', 'internal'],
      ['buyer@other.org', 'external'],
    ]);
  });

  it('turns only parse errors into warnings (with their line), never warnings or infos', () => {
    // An orphan line (warning) and a BOM (info) are diagnostics, not warnings of the upload.
    const r = prevalidateUpload({ ...base, transcript: `\uFEFF${SRT}\nstray line\n` });
    expect(r.report.diagnostics.map((d) => d.severity).sort()).toEqual(['info', 'warning']);
    expect(r.warnings).toEqual([]);
    // A NUL on line 1 is an error with a line; the warning carries it.
    const nul = prevalidateUpload({ ...base, transcript: `x\u0000${SRT}` });
    expect(nul.warnings).toEqual([
      {
        code: 'nul_character',
        field: 'transcript',
        line: 1,
        message: expect.stringMatching(/^The text contains NUL characters/),
      },
    ]);
  });
});

describe('the rule book', () => {
  it('repDesignatorProblem: exactly one of userId / email (R1, D5)', () => {
    expect(repDesignatorProblem(true, false)).toBeNull();
    expect(repDesignatorProblem(false, true)).toBeNull();
    expect(repDesignatorProblem(true, true)).toMatch(/not both/);
    expect(repDesignatorProblem(false, false)).toMatch(/^Send one of/);
  });

  it('rule8RepSpeaks: passes unlabeled transcripts, needs the rep in a labeled one', () => {
    const labeled = prevalidateUpload(base).parsed!;
    const plain = prevalidateUpload({ ...base, transcript: 'hello there, rep speaking' }).parsed!;
    const srt = prevalidateUpload({
      ...base,
      transcript: '1\n00:00:00,000 --> 00:00:01,000\nAgent: hi there\n',
    }).parsed!;
    expect(labeled.format).toBe('labeled-srt');
    expect(rule8RepSpeaks(labeled, ' REP@acme.com')).toBe(true);
    expect(rule8RepSpeaks(labeled, 'other@acme.com')).toBe(false);
    expect(rule8RepSpeaks(labeled, null)).toBe(false);
    expect(rule8RepSpeaks(plain, null)).toBe(true);
    expect(rule8RepSpeaks(srt, 'other@acme.com')).toBe(true);
  });
});
