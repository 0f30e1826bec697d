import type { RealCallSession } from '@rcs/client';
import { parseTranscript } from '@rcs/transcript';
import { formatKpis, style } from './format.js';
import { safeLine } from './sanitize.js';
import { renderTable } from './table.js';
import { renderTimeline, segmentsOf } from './timeline.js';

export interface SessionViewOptions {
  color?: boolean;
  /** The rep's email: shown as the rep, and marks them in the talk-time timeline. */
  repEmail?: string;
}

/**
 * A session for a person: state and score (D19: 0–100, completed at 70+), KPIs (D21 units), the
 * scorecard items as a table, and the talk-time timeline when the transcript has timing. All
 * service-supplied text goes through `safeLine` (cli.md: control characters neutralised).
 */
export function renderSession(session: RealCallSession, options: SessionViewOptions = {}): string {
  const s = style(options.color ?? false);
  const out: string[] = [];
  const done = session.state === 'DONE';
  const score = done ? `score ${session.analysis.score}/100` : `analysis ${session.analysis.state}`;
  const verdict = done
    ? session.completed
      ? s.green('completed')
      : s.yellow('not completed')
    : '';
  out.push(
    [s.bold(`Session ${safeLine(session.id)}`), safeLine(session.state), score, verdict]
      .filter(Boolean)
      .join('  '),
  );
  const facts: string[] = [];
  if (session.scorecardTitle) facts.push(`scorecard: ${safeLine(session.scorecardTitle)}`);
  if (session.missionTitle) facts.push(`mission: ${safeLine(session.missionTitle)}`);
  if (session.trackTitle) facts.push(`track: ${safeLine(session.trackTitle)}`);
  facts.push(`language: ${safeLine(session.language)}`);
  // The rep by the email the user typed when it is known, else the user id.
  facts.push(`rep: ${safeLine(options.repEmail ?? session.userId)}`);
  if (session.participantUserIds?.length) {
    facts.push(`participants: ${session.participantUserIds.length}`);
  }
  out.push(facts.join(' · '));
  if (session.kpis.state === 'DONE') out.push(`KPIs: ${formatKpis(session.kpis)}`);
  else out.push(`KPIs: ${safeLine(session.kpis.state)}`);

  const items = session.analysis.items ?? [];
  if (items.length > 0) {
    out.push('');
    out.push(
      renderTable(
        [
          { header: 'Scorecard item', max: 40 },
          { header: 'Result' },
          { header: 'Score', align: 'right' },
          { header: 'Evidence', max: 50 },
        ],
        items.map((item) => [
          item.name ?? '(unnamed)',
          item.solved ?? '–',
          item.score,
          item.behaviours?.[0]?.evidence?.[0] ?? item.explanation ?? '',
        ]),
      ),
    );
  } else if (session.analysis.state === 'SKIPPED') {
    out.push('No scorecard was applied (analysis SKIPPED).');
  }

  const text = session.call.transcript;
  if (text) {
    const timeline = renderTimeline(segmentsOf(parseTranscript(text)), {
      ...(options.repEmail ? { rep: options.repEmail.toLowerCase() } : {}),
    });
    if (timeline) out.push('', timeline);
  }
  return `${out.join('\n')}\n`;
}
