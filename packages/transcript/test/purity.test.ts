// The package must run in a browser and depend on nothing (ARCHITECTURE.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const sources = (readdirSync(join(root, 'src'), { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(root, 'src', f), 'utf8') }));

describe('purity', () => {
  it('has no runtime dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });

  it('imports only its own modules and uses no Node globals', () => {
    expect(sources.length).toBeGreaterThan(10);
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gm))
        expect(m[1], file).toMatch(/^\.\.?\//);
      expect(text, file).not.toMatch(/\b(require\(|process\.|Buffer\b|__dirname|import\.meta)/);
    }
  });
});
