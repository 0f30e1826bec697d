import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Reads the source text, so mutation runs exclude it (stryker/vitest.config.ts): a mutated,
// instrumented file is not what this test is about.
describe('runs outside Node (browsers, Deno, Bun)', () => {
  it('no source file of the client imports a node: module or a Node global', () => {
    const src = fileURLToPath(new URL('../src', import.meta.url));
    const files = (readdirSync(src, { recursive: true }) as string[]).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      // Comments may talk about require(); code may not use it.
      const text = readFileSync(join(src, f), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      expect(text, f).not.toMatch(/from\s+['"]node:|require\(|\bprocess\.|\bBuffer\b/);
    }
  });
});
