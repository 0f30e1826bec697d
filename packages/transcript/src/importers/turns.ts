import { extractLabel } from '../labels.js';
import { isBlank, splitLines, stripBom } from '../lines.js';
import { stripMarkup } from '../markup.js';
import { clip, parseCues, parseTranscript } from '../parse.js';
import { TIMING_FRACTION, TIMING_SHORT_FIELD } from '../timing.js';
import type { Cue, Diagnostic } from '../types.js';
import { OTTER_FOOTER, parseClock, parseMeetMarker, parseSpeakerHeader } from './clock.js';
import { decodeEntities } from './entities.js';
import type { Turn, TurnsResult } from './types.js';
import { parseWebVtt } from './vtt.js';

/** The display name before a `Name: text` label, as written (case kept), and the rest. */
function splitNameLabel(line: string): { name: string; rest: string } | null {
  const m = extractLabel(line);
  if (m === null) return null;
  // (Names are trimmed by the importer, which compares them.)
  return { name: line.slice(0, line.indexOf(':')), rest: line.slice(m.cut) };
}

/**
 * Markup is stripped before entities are decoded, so `&lt;Thursday&gt;` is words, not a tag. When
 * the decoded text would hold a tag again, its angle brackets stay encoded: the SRT is read with
 * markup stripped (D12), which would drop the word.
 */
function cueText(lines: readonly string[], decode: boolean): string {
  const t = stripMarkup(lines.join('\n'));
  if (!decode) return t;
  const decoded = decodeEntities(t);
  return stripMarkup(decoded) === decoded ? decoded : decodeEntities(t, true);
}

/** WebVTT: Teams `<v Name>` voice spans, Zoom `Name: text` prefixes, or neither. */
export function vttTurns(text: string): TurnsResult {
  const { cues, diagnostics } = parseWebVtt(text);
  // Voice spans and tags are the importer's business here, not news for the user.
  const relevant = diagnostics.filter((d) => d.code !== 'markup_stripped');
  return { turns: cues.map((c) => vttTurn(c)), diagnostics: relevant };
}

function vttTurn(c: Cue): Turn {
  // Stryker disable next-line StringLiteral: any text without "<v" or ':' reads as this empty line does.
  const first = c.lines[0] ?? '';
  const voice = voiceName(first);
  if (voice !== null) return cueTurn(c, voice || null, c.lines, true);
  const named = splitNameLabel(first);
  if (named === null) return cueTurn(c, null, c.lines, true);
  return cueTurn(c, decodeEntities(named.name), [named.rest, ...c.lines.slice(1)], true);
}

/** A cue as a turn: its times and line, `speaker`, and the text of `lines`. */
function cueTurn(c: Cue, speaker: string | null, lines: readonly string[], decode: boolean): Turn {
  const text = cueText(lines, decode);
  return { speaker, startMs: c.startMs, endMs: c.endMs, text, line: c.line };
}

/** `<v Name>` or `<v.class Name>` at the start of a line: the name (entities decoded), '' if none. */
export function voiceName(line: string): string | null {
  const s = line.trimStart();
  if (!s.startsWith('<v') || !(s[2] === ' ' || s[2] === '.' || s[2] === '>' || s[2] === '\t'))
    return null;
  const close = s.indexOf('>');
  if (close === -1) return null;
  const inner = s.slice(2, close);
  const space = inner.search(/[ \t]/);
  return space < 0 ? '' : decodeEntities(inner.slice(space + 1));
}

/** The non-blank lines of a text export (BOM dropped), each with its 1-based number. */
function* contentLines(text: string): Generator<[line: string, no: number]> {
  for (const [i, line] of splitLines(stripBom(text)).entries()) {
    if (!isBlank(line)) yield [line, i + 1];
  }
}

/** SRT, as exported by Otter and others: `Name: text` labels on the first line of a cue. */
export function srtTurns(text: string): TurnsResult {
  const parsed = parseTranscript(text);
  const turns = parsed.cues.map((c) => {
    const named = c.lines.length > 0 ? splitNameLabel(c.lines[0]!) : null;
    const lines = named ? [named.rest, ...c.lines.slice(1)] : c.lines;
    return cueTurn(c, named?.name ?? null, lines, false);
  });
  return { turns, diagnostics: parsed.diagnostics };
}

/**
 * Teams docx, 2021–22 layout: unpadded timing line (`0:0:4.520`, `0:0:0.0`), speaker line, text
 * lines, no indices. Unpadded fields and fractions are how the format is written, not news; any
 * other departure (no hours, no spaces around the arrow…) is still reported.
 */
export function teamsLegacyTurns(text: string): TurnsResult {
  const parsed = parseCues(text, {}, TIMING_SHORT_FIELD | TIMING_FRACTION);
  const diagnostics = parsed.diagnostics.filter((d) => d.code !== 'missing_index');
  const turns = parsed.cues.map((c) => {
    const name = c.lines[0];
    // A blank name is no speaker for the importer either.
    return cueTurn(c, name === undefined ? null : decodeEntities(name), c.lines.slice(1), false);
  });
  return { turns, diagnostics };
}

const TEAMS_SYSTEM = [' started transcription', ' stopped transcription'];

/** `<Name> started transcription` / `… stopped transcription`: the name, or null. */
function teamsNoticeName(t: string): string | null {
  for (const s of TEAMS_SYSTEM) if (t.endsWith(s)) return t.slice(0, -s.length).trim();
  return null;
}

/**
 * `Name  M:SS` turn headers followed by paragraphs: Otter TXT (two spaces) and Teams docx text
 * (three spaces). Lines before the first header (title, date, duration) and tool footers are
 * skipped with an info. A footer is matched exactly: Otter's "Transcribed by https://otter.ai"
 * paragraph, and Teams' "<Name> started/stopped transcription" only for a name already seen (a
 * turn header's, or the one who started transcription before the first turn), so a spoken "we
 * started transcription" stays speech.
 */
export function headerTurns(text: string): TurnsResult {
  const turns: Turn[] = [];
  const diagnostics: Diagnostic[] = [];
  // A line that is no notice (null) is looked up too: null is never added, so never found.
  const names = new Set<string | null>();
  // The open turn: its header, and its paragraphs so far.
  let cur: { speaker: string; startMs: number; line: number; parts: string[] } | null = null;
  const flush = () => {
    if (cur) {
      const { speaker, startMs, line, parts } = cur;
      turns.push({ speaker, startMs, endMs: null, text: parts.join('\n'), line });
    }
  };
  for (const [line, no] of contentLines(text)) {
    const t = line.trim();
    const notice = teamsNoticeName(t);
    if (t === OTTER_FOOTER || names.has(notice)) {
      skipped(diagnostics, no, t);
      continue;
    }
    const h = parseSpeakerHeader(line);
    if (h !== null) {
      flush();
      names.add(h.name);
      cur = { speaker: h.name, startMs: h.startMs, line: no, parts: [] };
      continue;
    }
    if (cur === null) {
      if (notice !== null) names.add(notice);
      skipped(diagnostics, no, t);
      continue;
    }
    cur.parts.push(t);
  }
  flush();
  return { turns, diagnostics };
}

function skipped(diagnostics: Diagnostic[], line: number, text: string): void {
  diagnostics.push({
    code: 'skipped_line',
    severity: 'info',
    line,
    message: `Line ${line} is not speech (title, date, attendees or a tool notice) and is left out: "${clip(text, 60)}".`,
  });
}

/**
 * Google Meet transcript text: `Name: text` paragraphs, `HH:MM:SS` markers every few minutes,
 * a header (title, "Attendees", attendee list, disclaimer) and "Meeting ended after …".
 */
export function meetTurns(text: string): TurnsResult {
  const turns: Turn[] = [];
  const diagnostics: Diagnostic[] = [];
  let clock: number | null = null;
  let afterAttendees = false;
  for (const [line, no] of contentLines(text)) {
    const t = line.trim();
    const marker = parseMeetMarker(t);
    if (marker !== null) {
      clock = marker;
      continue;
    }
    const header =
      t === 'Attendees' ||
      afterAttendees || // the line after "Attendees" lists names with commas; it is no speech
      t.startsWith('Meeting ended after ') ||
      t.endsWith(') - Transcript') ||
      t.startsWith('This editable transcript was computer generated');
    afterAttendees = t === 'Attendees';
    if (header) {
      skipped(diagnostics, no, t);
      continue;
    }
    const named = splitNameLabel(line);
    if (named !== null) {
      turns.push({
        speaker: named.name,
        startMs: clock,
        endMs: null,
        text: named.rest,
        line: no,
      });
      clock = null;
      continue;
    }
    const prev = turns[turns.length - 1];
    if (prev) prev.text += `\n${t}`;
    else skipped(diagnostics, no, t);
  }
  return { turns, diagnostics };
}

/**
 * Zoom chat saves (FORMATS.md 1c): one-line `HH:MM:SS From Sender : msg` (or `… to X(Direct
 * Message) : msg`), two-line `HH:MM:SS From Sender to X:` + tab-indented lines, and the cloud
 * `HH:MM:SS<TAB>Sender:<TAB>msg`. Local saves carry wall-clock times, taken relative to the
 * first message.
 */
export function zoomChatTurns(text: string): TurnsResult {
  const turns: Turn[] = [];
  const diagnostics: Diagnostic[] = [];
  let first: number | null = null;
  let wallClock = false;
  // A reaction is a message of its own ('Reacted to "…" with 👍'); its continuation lines too.
  // Stryker disable next-line BooleanLiteral: before the first message every line is skipped either way.
  let inReaction = false;
  for (const [line, no] of contentLines(text)) {
    const head = chatHead(line);
    if (head === null) {
      const t = line.trim();
      const prev = turns[turns.length - 1];
      if (inReaction || t.startsWith('Reacted to "')) {
        // Newer clients write reactions as messages: no speech (FORMATS.md 1c).
        if (!inReaction && prev && prev.text === '') turns.pop();
        inReaction = true;
        skipped(diagnostics, no, t);
      } else if (t.startsWith('Replying to "')) {
        // The quoted message is someone else's words; the reply follows on the next line.
        skipped(diagnostics, no, t);
      } else if (prev) {
        prev.text = prev.text.length > 0 ? `${prev.text}\n${t}` : t;
      } else skipped(diagnostics, no, t);
      continue;
    }
    inReaction = head.message.startsWith('Reacted to "');
    if (inReaction) {
      skipped(diagnostics, no, line.trim());
      continue;
    }
    if (head.from) wallClock = true;
    if (first === null) first = head.ms;
    turns.push({
      speaker: head.sender,
      startMs: head.ms,
      endMs: null,
      text: head.message,
      line: no,
    });
  }
  if (wallClock) {
    // Every chat turn has its time (head.ms); wallClock comes with a message, so `first` is set.
    for (const t of turns) t.startMs = (t.startMs as number) - (first as number);
  }
  return { turns, diagnostics };
}

interface ChatHead {
  ms: number;
  sender: string;
  message: string;
  from: boolean;
}

export function chatHead(line: string): ChatHead | null {
  const sp = line.search(/[ \t]/);
  if (sp < 5 || sp > 8) return null;
  const ms = parseClock(line.slice(0, sp));
  if (ms === null) return null;
  const rest = line.slice(sp).trimStart();
  if (rest.startsWith('From ')) {
    const body = rest.slice(5);
    // One-line: "Sender : message" / "Sender to X(Direct Message) : message".
    const sep = body.indexOf(' : ');
    const colonEnd = body.trimEnd().endsWith(':') && sep < 0;
    if (sep < 0 && !colonEnd) return null;
    const who = colonEnd ? body.trimEnd().slice(0, -1) : body.slice(0, sep);
    const message = colonEnd ? '' : body.slice(sep + 3).trim();
    return { ms, sender: chatSender(who), message, from: true };
  }
  // Cloud: "Sender:<TAB>message".
  const tab = rest.indexOf(':\t');
  if (tab <= 0) return null;
  return {
    ms,
    sender: rest.slice(0, tab),
    message: rest.slice(tab + 2).trim(),
    from: false,
  };
}

/**
 * "Ana Ruiz to Everyone" / "Ben Okafor  to  Ana Ruiz(Direct Message)" → the sender: what comes
 * before the last " to " (which also cuts off the recipient's "(Direct Message)").
 */
function chatSender(who: string): string {
  const s = who.trim();
  const to = s.lastIndexOf(' to ');
  return (to === -1 ? s : s.slice(0, to)).replace(/\s+/g, ' ');
}

/** Plain text `Name: text` lines (no timing); lines without a label continue the previous turn. */
export function plainTurns(text: string): TurnsResult {
  const turns: Turn[] = [];
  for (const [line, no] of contentLines(text)) {
    const named = splitNameLabel(line);
    const prev = turns[turns.length - 1];
    if (named === null && prev) {
      prev.text += `\n${line.trim()}`;
      continue;
    }
    turns.push({
      speaker: named?.name ?? null,
      startMs: null,
      endMs: null,
      text: named ? named.rest : line.trim(),
      line: no,
    });
  }
  return { turns, diagnostics: [] };
}

/** Fireflies GraphQL `sentences[]` (times in seconds) or the same inside `transcript`/`data`. */
export function firefliesTurns(json: unknown): TurnsResult {
  const sentences = findArray(json, 'sentences');
  const turns: Turn[] = [];
  for (const s of sentences) {
    if (s === null || typeof s !== 'object') continue;
    const o = s as Record<string, unknown>;
    turns.push({
      speaker: typeof o.speaker_name === 'string' ? o.speaker_name : null,
      startMs: seconds(o.start_time),
      endMs: seconds(o.end_time),
      text: typeof o.text === 'string' ? o.text : '',
      line: 0,
    });
  }
  return { turns, diagnostics: [] };
}

/** Gong `callTranscripts[].transcript[]` monologues: speaker = speakerId, times in ms. */
export function gongTurns(json: unknown): TurnsResult {
  const turns: Turn[] = [];
  for (const call of findArray(json, 'callTranscripts')) {
    const monologues = (call as Record<string, unknown> | null)?.transcript;
    if (!Array.isArray(monologues)) continue;
    for (const m of monologues) {
      const o = (m ?? {}) as Record<string, unknown>;
      const speaker =
        typeof o.speakerId === 'string' || typeof o.speakerId === 'number'
          ? String(o.speakerId)
          : null;
      if (!Array.isArray(o.sentences)) continue;
      for (const s of o.sentences) {
        const t = (s ?? {}) as Record<string, unknown>;
        turns.push({
          speaker,
          startMs: typeof t.start === 'number' ? t.start : null,
          endMs: typeof t.end === 'number' ? t.end : null,
          text: typeof t.text === 'string' ? t.text : '',
          line: 0,
        });
      }
    }
  }
  return { turns, diagnostics: [] };
}

function seconds(v: unknown): number | null {
  return Number.isFinite(v) ? Math.round((v as number) * 1000) : null;
}

/** The first array of `json[key]`, `json.data[key]`, `json.transcript[key]` (a scalar has none). */
function findArray(json: unknown, key: string): unknown[] {
  const o = (json ?? {}) as Record<string, Record<string, unknown> | null | undefined>;
  const found = [o[key], o.data?.[key], o.transcript?.[key]].find((v) => Array.isArray(v));
  // Stryker disable next-line ArrayDeclaration: both callers skip an element that is no object.
  return (found as unknown[] | undefined) ?? [];
}
