import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/rules-index.md maps every rule (R1–R10) and decision (D1–D29) to the
// function that implements it and a test that holds it. This test keeps it true.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const INDEX = readFileSync(join(REPO, 'docs/rules-index.md'), 'utf8');

interface Row {
  id: string;
  impl: string;
  test: string;
}

const rows: Row[] = INDEX.split('\n')
  .filter((l) => /^\| [RD]\d+ \|/.test(l))
  .map((l) => {
    const cells = l.split('|').map((c) => c.trim());
    return { id: cells[1] as string, impl: cells[3] as string, test: cells[4] as string };
  });

const ids = [
  ...Array.from({ length: 10 }, (_, i) => `R${i + 1}`),
  ...Array.from({ length: 29 }, (_, i) => `D${i + 1}`),
];

/** `path#name` in backticks, or undefined for "not implemented". */
function ref(cell: string): { path: string; name: string } | undefined {
  const m = /^`([^`#]+)#([A-Za-z_$][\w$]*)`$/.exec(cell);
  return m ? { path: m[1] as string, name: m[2] as string } : undefined;
}

describe('docs/rules-index.md', () => {
  it('lists every rule and decision once, in order', () => {
    expect(rows.map((r) => r.id)).toEqual(ids);
  });

  it.each(ids)('%s: the named function is defined in the named file', (id) => {
    const row = rows.find((r) => r.id === id) as Row;
    const impl = ref(row.impl);
    if (!impl) {
      // Only an open issue may leave a decision unimplemented, and it says which.
      expect(row.impl).toMatch(/^not implemented yet \(issue \d+\)$/);
      return;
    }
    const file = join(REPO, impl.path);
    expect(existsSync(file), impl.path).toBe(true);
    const source = readFileSync(file, 'utf8');
    const defines = new RegExp(
      `(function\\*?|class|const|let|interface|type)\\s+${impl.name}\\b|^\\s*(private\\s+|async\\s+)?${impl.name}\\s*\\(`,
      'm',
    );
    expect(source, `${impl.path} defines ${impl.name}`).toMatch(defines);
  });

  it.each(ids)('%s: the test file exists and names the rule or its function', (id) => {
    const row = rows.find((r) => r.id === id) as Row;
    if (!ref(row.impl)) return;
    const test = /^`([^`]+)`$/.exec(row.test)?.[1];
    expect(test, `${id} names a test`).toBeDefined();
    const file = join(REPO, test as string);
    expect(existsSync(file), test).toBe(true);
    const text = readFileSync(file, 'utf8');
    const name = ref(row.impl)?.name as string;
    const mentions = new RegExp(`\\b${id}\\b|\\b${name}\\b|rule ${id.slice(1)}\\b`);
    expect(text, `${test} mentions ${id} or ${name}`).toMatch(mentions);
  });
});
