import { extractLabel } from '../labels.js';
import { isBlank, splitLines, stripBom } from '../lines.js';
import { parseTimingLine, TIMING_SHORT_FIELD } from '../timing.js';
import { OTTER_FOOTER, parseMeetMarker, parseSpeakerHeader } from './clock.js';
import { chatHead, voiceName } from './turns.js';
import type { ImportSource } from './types.js';

/** Lines looked at when sniffing (the shapes show within the first screen of every tool). */
const SNIFF_LINES = 200;

/**
 * Picks the importer, following FORMATS.md §7: JSON shape, `WEBVTT` (then `<v ` → Teams,
 * `Name: ` → Zoom), SRT timing lines (unpadded → Teams docx legacy), turn headers (`Name   0:03`
 * → Teams docx, `Name  0:02` / "Transcribed by https://otter.ai" → Otter), Google Meet markers,
 * Zoom chat lines, else plain text. The file name's extension only breaks ties.
 */
export function detectSource(text: string, fileName?: string): ImportSource {
  if (typeof text !== 'string') return 'plain';
  const body = stripBom(text);
  const vttName = typeof fileName === 'string' && fileName.toLowerCase().endsWith('.vtt');
  // Gong and Fireflies exports are JSON (text that is not fails to parse at once). The keys show
  // in the first 4 KiB; anything that is no JSON stringifies as "null".
  let json: unknown = null;
  try {
    json = JSON.parse(body);
  } catch {
    // Not JSON: it stays null.
  }
  const s = JSON.stringify(json).slice(0, 4096);
  if (s.includes('"speaker_name"') && s.includes('"sentences"')) return 'fireflies-json';
  if (s.includes('"callTranscripts"') || s.includes('"speakerId"')) return 'gong-json';
  const lines = splitLines(body).slice(0, SNIFF_LINES);
  const first = lines.find((l) => !isBlank(l))?.trim();
  if (first?.startsWith('WEBVTT') || vttName) {
    let voices = 0;
    let names = 0;
    for (let i = 1; i < lines.length; i++) {
      if (parseTimingLine(lines[i - 1]!) === null) continue;
      const l = lines[i]!;
      if (voiceName(l) !== null) voices++;
      else if (extractLabel(l) !== null) names++;
    }
    return voices > 0 ? 'teams-vtt' : names > 0 ? 'zoom-vtt' : 'webvtt';
  }
  let timing = 0;
  let unpadded = 0;
  let teamsHeaders = 0;
  let otterHeaders = 0;
  let meet = 0;
  let chat = 0;
  for (const raw of lines) {
    const l = raw.trim();
    const t = parseTimingLine(raw);
    if (t !== null) {
      timing++;
      if (t.flags & TIMING_SHORT_FIELD) unpadded++;
      continue;
    }
    if (l.endsWith('-Meeting Transcript')) teamsHeaders += 5;
    if (l === OTTER_FOOTER) otterHeaders += 5;
    if (l === 'Attendees' || l.startsWith('Meeting ended after ') || l.endsWith(') - Transcript'))
      meet++;
    if (parseMeetMarker(l) !== null) meet++;
    if (chatHead(raw) !== null) chat++;
    const h = parseSpeakerHeader(raw);
    if (h !== null) {
      if (h.spaces >= 3) teamsHeaders++;
      else otterHeaders++;
    }
  }
  if (timing > 0) return unpadded * 2 > timing ? 'teams-docx-legacy' : 'srt';
  if (chat > 0 && chat >= teamsHeaders + otterHeaders) return 'zoom-txt';
  if (teamsHeaders > 0 && teamsHeaders >= otterHeaders) return 'teams-docx';
  if (otterHeaders > 0) return 'otter-txt';
  if (meet >= 2) return 'meet-txt';
  return 'plain';
}
