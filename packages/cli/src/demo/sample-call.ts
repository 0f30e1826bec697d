/**
 * The bundled sample call of `rcs demo`: a short discovery call as speaker-labeled SRT (R4). The
 * rep's label is filled in with a rep of the mock's demo organization, the prospect has an
 * outside address (external, never attributed, D13), and one "Note:" label shows rule 6 (removed).
 * Inlined rather than shipped as a file so the bundle needs no asset copying.
 */
export const SAMPLE_MEETING_NAME = 'Discovery call with Northwind (rcs demo)';
const SAMPLE_CUSTOMER = 'jordan.lee@northwind-traders.example';

const LINES: [start: string, end: string, who: 'rep' | 'customer' | 'note', text: string][] = [
  [
    '00:00:01,000',
    '00:00:06,500',
    'rep',
    "Hi Jordan, thanks for making time today. How's the quarter going?",
  ],
  [
    '00:00:07,000',
    '00:00:14,000',
    'customer',
    'Busy. Our reporting is a mess and the team keeps missing follow-ups.',
  ],
  [
    '00:00:14,500',
    '00:00:24,000',
    'rep',
    'That sounds painful. Before I show anything: what budget have you set aside for fixing it this year?',
  ],
  [
    '00:00:25,000',
    '00:00:33,000',
    'customer',
    'We spend about forty thousand on tooling now, and we could move some of that.',
  ],
  ['00:00:33,500', '00:00:36,000', 'note', 'customer shares a spreadsheet'],
  [
    '00:00:36,500',
    '00:00:47,000',
    'rep',
    'Good to know the spend. Who else has to sign off on a decision like this, and who would approve the contract?',
  ],
  [
    '00:00:48,000',
    '00:00:56,000',
    'customer',
    'Our VP of Sales makes the decision; finance approves anything over twenty thousand.',
  ],
  [
    '00:00:56,500',
    '00:01:08,000',
    'rep',
    'Then a sensible next step is a session with your VP. Can I send a calendar invite for Thursday and follow up with a summary today?',
  ],
  ['00:01:09,000', '00:01:13,000', 'customer', 'Thursday works. Send the invite.'],
  [
    '00:01:13,500',
    '00:01:20,000',
    'rep',
    "Great. I'll follow up with the summary and the budget figures we discussed.",
  ],
];

/** The sample as speaker-labeled SRT, with `repEmail` as the rep's label. */
export function sampleCall(repEmail: string): string {
  return `${LINES.map(([start, end, who, text], i) => {
    const label = who === 'rep' ? repEmail : who === 'customer' ? SAMPLE_CUSTOMER : 'Note';
    return `${i + 1}\n${start} --> ${end}\n${label}: ${text}\n`;
  }).join('\n')}`;
}
