import type { Scorecard } from '../dataset.js';
import type { Language } from '../wire.js';

// The demo's texts: names, scorecards with their keywords (D19), and calls to score.

export const FIRST = 'ana ben chloe dario elif finn greta hugo ines jonas'.split(' ');
export const LAST = 'ruiz okafor meyer rossi yilmaz berg novak silva kim dubois'.split(' ');
export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const SCORECARDS: { title: string; language: Language; items: Scorecard['items'] }[] = [
  {
    title: 'Discovery call',
    language: 'en',
    items: [
      { name: 'Asks about budget', keywords: ['budget', 'spend'] },
      { name: 'Finds the decision maker', keywords: ['decision', 'sign off', 'approve'] },
      { name: 'Agrees next steps', keywords: ['next step', 'follow up', 'calendar'] },
    ],
  },
  {
    title: 'Product demo',
    language: 'en',
    items: [
      { name: 'Connects features to pain', keywords: ['pain', 'problem', 'challenge'] },
      { name: 'Shows the dashboard', keywords: ['dashboard', 'report'] },
    ],
  },
  {
    title: 'Negotiation',
    language: 'en',
    items: [
      { name: 'Defends the price', keywords: ['price', 'value', 'discount'] },
      { name: 'Trades concessions', keywords: ['in return', 'if you', 'term'] },
    ],
  },
  {
    title: 'Erstgespräch',
    language: 'de',
    items: [{ name: 'Fragt nach dem Budget', keywords: ['budget', 'kosten'] }],
  },
];

/** Speaker-labeled SRT calls; `{rep}`, `{colleague}` are replaced by users' emails. */
export const CALLS: string[] = [
  `1
00:00:01,000 --> 00:00:05,000
{rep}: Thanks for joining. What budget do you have in mind for this year?

2
00:00:05,500 --> 00:00:09,000
buyer@client-co.example: Around fifty thousand, but I need my CFO to approve it.

3
00:00:09,200 --> 00:00:14,000
{rep}: Understood. Who else is part of the decision? Shall we book a follow up in the calendar?

4
00:00:14,500 --> 00:00:17,000
buyer@client-co.example: Yes, next Tuesday works.
`,
  `1
00:00:00,500 --> 00:00:04,000
{rep}: Let me show you the dashboard and the weekly report.

2
00:00:04,200 --> 00:00:07,500
{colleague}: I can add how other teams solved the same problem.

3
00:00:08,000 --> 00:00:11,000
buyer@client-co.example: Our challenge is the manual work at 10:30 every day.

4
00:00:11,200 --> 00:00:15,000
{rep}: That pain goes away: the report is built for you.
`,
  `1
00:00:02,000 --> 00:00:06,000
{rep}: The price reflects the value you get in the first year.

2
00:00:06,500 --> 00:00:09,000
Client: Can you do a discount?

3
00:00:09,500 --> 00:00:13,000
{rep}: If you sign a two-year term, in return we can talk.
`,
  `Plain notes of a short call: we talked about budget, the next step and a follow up next week.`,
];
