import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const committedPath = new URL('packages/client/src/generated/openapi.ts', root);

/**
 * The committed types must be what `npm run gen` makes of today's openapi.yaml. Formatting is
 * not compared: the CLI adds a header comment and the gen script may reformat, so both sides are
 * compared without the header and without whitespace.
 */
function normalise(source: string): string {
  return source.replace(/^\/\*\*[\s\S]*?auto-generated[\s\S]*?\*\//, '').replace(/\s+/g, '');
}

describe('generated types', () => {
  it('packages/client/src/generated/openapi.ts is fresh (run `npm run gen` if this fails)', async () => {
    const ast = await openapiTS(new URL('openapi.yaml', root));
    const fresh = astToString(ast);
    const committed = readFileSync(committedPath, 'utf8');
    expect(fresh.length).toBeGreaterThan(1_000);
    expect(normalise(committed) === normalise(fresh)).toBe(true);
  });

  it('the comparison sees a real change (a renamed field)', async () => {
    const committed = readFileSync(committedPath, 'utf8');
    const tampered = committed.replace('hasNext: boolean', 'hasMore: boolean');
    expect(tampered).not.toBe(committed);
    expect(normalise(tampered)).not.toBe(normalise(committed));
  });
});
