import { withoutBidiControls } from './lines.js';
import type { ParsedTranscript } from './types.js';

// Speaker labels that name a role, not a person: a call labelled `Agent:` / `Client:` is accepted,
// its labels are removed without attribution (R6, D13), and the rep's turns cannot be found, so it
// is scored without them. A caller that knows the rep's e-mail can suggest the speaker map that
// fixes it. Lowercase; a few languages besides English.

/** Roles on the rep's side of a sales or support call: English, then es, pt, fr, de, it, nl, he. */
const REP_ROLES = words(`
  agent, rep, representative, sales, sales rep, sales agent, salesperson, seller,
  account executive, ae, sdr, bdr, host, interviewer, support, support agent, operator, advisor,
  adviser, consultant, agente, vendedor, vendedora, asesor, asesora, comercial, representante,
  atendente, consultor, vendeur, vendeuse, conseiller, conseillère, verkäufer, verkäuferin,
  berater, beraterin, venditore, operatore, consulente, verkoper, נציג, נציגה, מוכר, מוכרת
`);

/** Roles on the customer's side. */
const CUSTOMER_ROLES = words(`
  client, customer, buyer, prospect, caller, guest, interviewee, lead, cliente, comprador,
  compradora, acheteur, kunde, kundin, käufer, klant, koper, לקוח, לקוחה
`);

/** Numbered voices of a transcription service: `Speaker 1`, `SPEAKER_01`, `Sprecher 2`. */
const NEUTRAL_ROLES = words(`
  speaker, participant, person, voice, unknown speaker, interlocutor, sprecher, sprecherin,
  hablante, locutor, locuteur, orateur, intervenant, falante, parlante, דובר, דוברת
`);

/** The comma-separated entries of a list (an entry may hold a space: "sales rep"). */
function words(list: string): Set<string> {
  return new Set(list.split(',').map((w) => w.trim()));
}

export type RoleSide = 'rep' | 'customer' | 'unknown';

export interface RoleLabel {
  /** The label as written on its first line (case kept, bidi controls dropped). */
  label: string;
  side: RoleSide;
  /** 1-based line where it first occurs. */
  line: number;
}

/** Which side a label's role is on, or null when it does not look like a role. `label` is lowercase (D12). */
function roleOf(label: string): RoleSide | null {
  const key = withoutBidiControls(label)
    .replace(/[_\s]+/g, ' ')
    // A label is at most MAX_LABEL_LENGTH (64) characters, so these two cannot take long.
    // eslint-disable-next-line redos/no-vulnerable
    .replace(/\s*\(.*\)$/, '')
    // eslint-disable-next-line redos/no-vulnerable
    .replace(/(\s*#?\s*[0-9]+|\s+[a-z])$/, '')
    .trim();
  if (REP_ROLES.has(key)) return 'rep';
  if (CUSTOMER_ROLES.has(key)) return 'customer';
  if (NEUTRAL_ROLES.has(key)) return 'unknown';
  return null;
}

/**
 * The distinct non-email labels of a parsed transcript that look like roles (`Agent`, `Client`,
 * `Speaker 1`, `Kunde`, `לקוח`), in first-speaking order. Empty when any label is an e-mail: such
 * a transcript already names its speakers.
 */
export function roleLabels(parsed: ParsedTranscript): RoleLabel[] {
  const out: RoleLabel[] = [];
  const seen = new Set<string>();
  for (const c of parsed.cues) {
    if (c.label === null) continue;
    if (c.speaker.email !== undefined) return [];
    if (seen.has(c.label)) continue;
    seen.add(c.label);
    const side = roleOf(c.label);
    if (side === null) continue;
    // A label is what comes before the first ':' of its cue's first line (D12): as written there.
    const first = c.lines[0]!;
    const written = withoutBidiControls(first.slice(0, first.indexOf(':'))).trim();
    out.push({ label: written, side, line: c.labelLine ?? c.line });
  }
  return out;
}
