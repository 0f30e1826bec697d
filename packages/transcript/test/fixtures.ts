// Test helpers: where the shared fixtures live and how to list them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(
  new URL('../../../test/shared/fixtures/transcripts/', import.meta.url),
);

export interface ExpectedCue {
  id: string | null;
  start: number;
  end: number;
  text: string;
}

export interface ExpectedEntry {
  format: 'srt' | 'vtt' | 'plain';
  encoding: string;
  text_reliable: boolean;
  cues: ExpectedCue[];
  accept: string[];
  alt: { label: string; cues: ExpectedCue[] }[];
  note?: string;
}

export const EXPECTED: Record<string, ExpectedEntry> = JSON.parse(
  readFileSync(join(FIXTURES, 'EXPECTED.json'), 'utf8'),
);

/** Every fixture file under external/ and synthetic/ (relative paths, sorted). */
export function listFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(FIXTURES, p));
    }
  };
  walk(join(FIXTURES, 'external'));
  walk(join(FIXTURES, 'synthetic'));
  return out.sort();
}

export function readFixture(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, rel)));
}
