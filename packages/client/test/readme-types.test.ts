import { readFileSync } from 'node:fs';
import { EXPORT_TABLE } from '@rcs/client';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** The record types `@rcs/client` exports (types.ts: `export type <Name>ExportRecord = …`). */
function exportedRecordTypes(): string[] {
  const source = read('packages/client/src/types.ts');
  return [...source.matchAll(/^export type (\w+ExportRecord) =/gm)].map((m) => m[1]!);
}

describe("the repository's README names the SDK's record types", () => {
  it('one exported record type per export of the table', () => {
    expect(exportedRecordTypes()).toHaveLength(EXPORT_TABLE.length);
  });

  it.each(exportedRecordTypes())('README.md names %s', (name) => {
    expect(read('README.md')).toContain(`\`${name}\``);
  });
});
