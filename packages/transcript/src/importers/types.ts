import type { Diagnostic } from '../types.js';

/** Where a transcript comes from; picks the importer (`detectSource`). */
export type ImportSource =
  | 'srt'
  | 'webvtt'
  | 'zoom-vtt'
  | 'teams-vtt'
  | 'teams-docx'
  | 'teams-docx-legacy'
  | 'zoom-txt'
  | 'otter-txt'
  | 'meet-txt'
  | 'fireflies-json'
  | 'gong-json'
  | 'plain';

export const IMPORT_SOURCES: readonly ImportSource[] = [
  'srt',
  'webvtt',
  'zoom-vtt',
  'teams-vtt',
  'teams-docx',
  'teams-docx-legacy',
  'zoom-txt',
  'otter-txt',
  'meet-txt',
  'fireflies-json',
  'gong-json',
  'plain',
];

/** One speaker turn as a meeting tool wrote it, before speaker mapping. */
export interface Turn {
  /** Display name (or Gong speaker id) as written, null when the tool did not identify one. */
  speaker: string | null;
  /** Null when the tool gives no time; the importer then estimates (warning `timing_estimated`). */
  startMs: number | null;
  endMs: number | null;
  text: string;
  /** 1-based line in the input where the turn starts (0 for JSON sources). */
  line: number;
}

export interface TurnsResult {
  turns: Turn[];
  diagnostics: Diagnostic[];
}
