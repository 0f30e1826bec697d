import type { CliContext } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { formatKpis, style } from '../output/format.js';
import { safeLine } from '../output/sanitize.js';
import { renderTable } from '../output/table.js';
import { renderTimeline, segmentsOf } from '../output/timeline.js';
import { parseSpeakerMap } from '../upload/files.js';
import {
  formatProblem,
  loadTranscript,
  type Problem,
  prevalidate,
  requestBody,
} from '../upload/prepare.js';
import { repDesignator } from './validate-flags.js';

export interface CheckOptions {
  file: string;
  email?: string;
  userId?: string;
  /** Comma-separated organization domains for the D13 classification. */
  domains?: string;
  speaker?: string[];
  /** --strict: a text that does not look like a transcript is a problem, not a warning. */
  strict?: boolean;
}

function parseDomains(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  for (const d of list) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(d)) {
      throw usageError(`--domains: "${d}" is not a domain name such as acme.com`);
    }
  }
  return list;
}

/**
 * `rcs check`: the transcript package's offline report for a person, no credentials needed. Exit 0
 * when the upload would pass pre-validation, 2 when not (cli.md).
 */
export async function run(opts: CheckOptions, ctx: CliContext): Promise<number> {
  const rep = repDesignator(opts, false);
  const domains = parseDomains(opts.domains);
  const speakers = parseSpeakerMap(opts.speaker);
  const loaded = await loadTranscript(opts.file, ctx.cwd, speakers);
  if (loaded.text === '' && loaded.problems.length > 0) {
    if (ctx.json) {
      ctx.stdout.write(
        `${JSON.stringify({ file: opts.file, ok: false, format: null, problems: loaded.problems })}\n`,
      );
    }
    throw usageError(loaded.problems.map((p) => safeLine(formatProblem(opts.file, p))).join('; '));
  }
  const body = requestBody(loaded, rep);
  const { result, problems: all, notTranscript } = prevalidate(loaded, body, domains);
  const repGiven = rep.email !== undefined || rep.userId !== undefined;
  // Without --email/--user-id the missing rep (D5) is not the transcript's problem: say so once.
  const problems: Problem[] = [
    ...loaded.problems,
    ...all.filter((p) => repGiven || p.field !== undefined),
  ];
  const warnings: Problem[] = [...loaded.warnings];
  if (notTranscript) (opts.strict ? problems : warnings).push(notTranscript);
  const { report } = result;
  const domainsHint = domains === undefined ? domainsHintOf(report.speakers, rep.email) : undefined;
  if (domainsHint) warnings.push({ code: 'domains_unknown', message: domainsHint });
  // Every diagnostic of the parser reaches the person, not only --json's `diagnostics`: what was
  // read leniently, text kept after a blank line, a timing line that is almost one.
  const shown = new Set(problems.map((p) => `${p.code}@${p.line}`));
  const notes: Problem[] = [...warnings];
  for (const d of report.diagnostics) {
    if (shown.has(`${d.code}@${d.line}`)) continue;
    const where = loaded.converted && d.line ? ' (line of the converted SRT)' : '';
    notes.push({
      code: d.code,
      line: d.line || undefined,
      message: `${d.severity === 'info' ? 'note: ' : ''}${d.message}${where}`,
    });
  }
  // In the order of the file (whole-file notes first); sort is stable within a line.
  notes.sort(byLine);
  const segments = result.parsed
    ? segmentsOf(result.parsed).map((sg) => ({ ...sg, speaker: shownLabel(sg.speaker) }))
    : [];
  const repEmail = rep.email?.toLowerCase();

  if (ctx.json) {
    ctx.stdout.write(
      `${JSON.stringify({
        file: opts.file,
        ok: problems.length === 0,
        source: loaded.source,
        converted: loaded.converted,
        ...report,
        importedSpeakers: loaded.speakers,
        problems,
        warnings,
      })}\n`,
    );
  } else {
    const s = style(ctx.color && ctx.stdoutIsTTY);
    const out: string[] = [];
    out.push(
      s.bold(safeLine(opts.file)) +
        `: ${report.format ?? 'unreadable'}, ${report.cueCount} cue${report.cueCount === 1 ? '' : 's'}` +
        (loaded.converted ? ` (converted from ${loaded.source} to speaker-labeled SRT)` : ''),
    );
    if (report.speakers.length > 0) {
      out.push('');
      out.push(
        renderTable(
          [
            { header: 'Speaker label', max: 48 },
            { header: 'Classification' },
            { header: 'Cues', align: 'right' },
            { header: 'First line', align: 'right' },
          ],
          report.speakers.map((sp) => [shownLabel(sp.label), sp.kind, sp.cueCount, sp.firstLine]),
        ),
      );
    } else {
      out.push(
        'No speaker labels: the call will not attribute speakers (participants stay empty).',
      );
    }
    // R6 / D16: non-email labels are taken out of the stored transcript, without attribution.
    if (report.removedLabels.length > 0) {
      const list = report.removedLabels
        .slice(0, 10)
        .map((r) => `"${safeLine(shownLabel(r.label))}" (line ${r.line})`)
        .join(', ');
      const more =
        report.removedLabels.length > 10 ? `, … ${report.removedLabels.length - 10} more` : '';
      out.push(`Labels removed without attribution (labels that are not e-mails): ${list}${more}`);
    }
    if (report.repSpeaks !== null) {
      out.push(
        `Rep ${safeLine(repEmail ?? rep.userId)} speaks: ${report.repSpeaks ? 'yes' : 'no'}`,
      );
    } else if (!repGiven) {
      out.push('Rep: not given (pass --email to check that the rep speaks and preview the KPIs)');
    }
    if (repEmail) out.push(`KPI preview: ${formatKpis(report.kpis)}`);
    const timeline = renderTimeline(segments, repEmail ? { rep: repEmail } : {});
    if (timeline) out.push('', timeline);
    if (notes.length > 0) {
      out.push('', 'Warnings:');
      for (const w of notes) out.push(`  ${safeLine(formatProblem(opts.file, w))}`);
    }
    if (problems.length > 0) {
      out.push('', s.red('Problems (the upload would be rejected):'));
      for (const p of [...problems].sort(byLine))
        out.push(`  ${safeLine(formatProblem(opts.file, p))}`);
    } else {
      out.push(
        '',
        s.green(
          notTranscript
            ? 'OK: the upload would pass pre-validation, but the file does not look like a transcript (--strict refuses it).'
            : 'OK: the upload would pass pre-validation.',
        ),
      );
    }
    ctx.stdout.write(`${out.join('\n')}\n`);
  }
  if (problems.length > 0) {
    throw new CliError(
      EXIT.usage,
      `${opts.file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} would make the upload fail; fix the lines listed above`,
    );
  }
  return EXIT.ok;
}

const byLine = (a: Problem, b: Problem) => (a.line ?? 0) - (b.line ?? 0);

/**
 * A label as a person reads it: the invisible bidirectional controls that right-to-left keyboards
 * and Teams put around Hebrew or Arabic names are dropped (shown escaped, "\u200fלקוח" reads as
 * another name); every other unsafe character is still escaped by safeLine.
 */
function shownLabel(label: string): string {
  return label.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/**
 * Without --domains every e-mail label is internal (D13: no domains configured), the buyer's
 * too, so the classification cannot tell the rep's side from the buyer's. When the labels carry
 * more than one domain, say which flag fixes it, with the rep's domain when it is known.
 */
function domainsHintOf(
  speakers: readonly { email?: string | undefined }[],
  repEmail: string | undefined,
): string | undefined {
  const seen = [
    ...new Set(speakers.flatMap((sp) => (sp.email ? [sp.email.split('@')[1]!.toLowerCase()] : []))),
  ];
  if (seen.length < 2) return undefined;
  const repDomain = repEmail?.split('@')[1]?.toLowerCase();
  const pass =
    repDomain && seen.includes(repDomain)
      ? `pass --domains ${repDomain}`
      : `pass --domains with your organization's domain (the labels have ${seen.join(', ')})`;
  return `without --domains every e-mail label counts as internal, the buyer's too; ${pass} to tell the rep's side from the buyer's`;
}
