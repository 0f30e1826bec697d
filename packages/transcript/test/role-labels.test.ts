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
  ])('%j is a role (%s)', (label, side) => {
    expect(roleLabels(parseTranscript(labeledSrt([label, 'Ana Ruiz'])))[0]?.side).toBe(side);
  });

  it('names, and transcripts that already carry e-mail labels, give none', () => {
    expect(roleLabels(parseTranscript(labeledSrt(['Ana Ruiz', 'Representative Smith'])))).toEqual(
      [],
    );
    expect(roleLabels(parseTranscript(labeledSrt(['Agent', 'ana@acme.com'])))).toEqual([]);
    expect(roleLabels(parseTranscript(labeledSrt(['Reps', 'Re'])))).toEqual([]);
  });
});
