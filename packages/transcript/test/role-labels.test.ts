import { parseTranscript, roleLabels } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { labeledSrt } from './support/imports.js';

// Speaker labels that name a role ("Agent", "Client", "Speaker 1") rather than a person: listed as
// a hint for the speaker map: the service removes such labels without attribution (R6).

describe('roleLabels', () => {
  it('finds role labels in first-speaking order, as written, with their side and line', () => {
    const parsed = parseTranscript(labeledSrt(['Client', 'Agent', 'Client', 'Speaker 1']));
    expect(roleLabels(parsed)).toEqual([
      { label: 'Client', side: 'customer', line: 3 },
      { label: 'Agent', side: 'rep', line: 7 },
      { label: 'Speaker 1', side: 'unknown', line: 15 },
    ]);
  });

  it.each([
    ['REP', 'rep'],
    ['Sales', 'rep'],
    ['sales rep', 'rep'],
    ['Customer', 'customer'],
    ['SPEAKER_01', 'unknown'],
    ['Speaker A', 'unknown'],
    ['Participant #2', 'unknown'],
    ['Kunde', 'customer'],
    ['Vendedor', 'rep'],
    ['Conseiller', 'rep'],
    ['\u200fלקוח', 'customer'],
    ['נציג', 'rep'],
    ['Agent (Ana)', 'rep'],
    ['Agent(Ana)', 'rep'],
    ['Speaker1', 'unknown'],
    ['Participant # 2', 'unknown'],
    ['Sales  Rep', 'rep'],
    ['SALES__REP', 'rep'],
    ['Agent_', 'rep'],
  ])('%j is a role (%s)', (label, side) => {
    expect(roleLabels(parseTranscript(labeledSrt([label, 'Ana Ruiz'])))[0]?.side).toBe(side);
  });

  it('cues without a label are passed over', () => {
    const srt = [
      '1\n00:00:01,000 --> 00:00:02,000\nAgent: Hello.\n',
      '2\n00:00:02,000 --> 00:00:03,000\nno label here\n',
      '3\n00:00:03,000 --> 00:00:04,000\nClient: Hi.\n',
    ].join('\n');
    const parsed = parseTranscript(srt);
    expect(parsed.cues.map((c) => c.label)).toEqual(['agent', null, 'client']);
    expect(roleLabels(parsed).map((r) => r.label)).toEqual(['Agent', 'Client']);
  });

  it('names, and transcripts that already carry e-mail labels, give none', () => {
    expect(roleLabels(parseTranscript(labeledSrt(['Ana Ruiz', 'Representative Smith'])))).toEqual(
      [],
    );
    expect(roleLabels(parseTranscript(labeledSrt(['Agent', 'ana@acme.com'])))).toEqual([]);
    expect(roleLabels(parseTranscript(labeledSrt(['Reps', 'Re'])))).toEqual([]);
  });
});
