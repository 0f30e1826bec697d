import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { howToRun } from '../../../src/commands/invocation.js';

// The next steps name `rcs` as the user types it.
describe('howToRun', () => {
  const root = mkdtempSync(join(tmpdir(), 'rcs-invocation-'));
  const script = join(root, 'lib/node_modules/@rcs/cli/bin/rcs.js');
  mkdirSync(join(root, 'lib/node_modules/@rcs/cli/bin'), { recursive: true });
  writeFileSync(script, '');
  mkdirSync(join(root, 'bin'));
  symlinkSync(script, join(root, 'bin/rcs')); // what `npm install -g` does

  it('a global install, found on PATH: rcs', () => {
    expect(howToRun(script, { PATH: join(root, 'bin') })).toBe('rcs');
  });

  it('through npm (npx rcs, npm run): npx rcs, although npm put the bin on PATH', () => {
    expect(howToRun(script, { PATH: join(root, 'bin'), npm_command: 'exec' })).toBe('npx rcs');
    expect(howToRun(script, { PATH: join(root, 'bin'), npm_command: 'run-script' })).toBe(
      'npx rcs',
    );
  });

  it('not on PATH (a local install run by its path): npx rcs', () => {
    expect(howToRun(script, { PATH: '/nonexistent' })).toBe('npx rcs');
    expect(howToRun(undefined, {})).toBe('npx rcs');
  });

  it("npx's one-off install in the npm cache: npx @rcs/cli", () => {
    const cached = join(root, '.npm/_npx/abc123/node_modules/@rcs/cli/bin/rcs.js');
    mkdirSync(join(root, '.npm/_npx/abc123/node_modules/@rcs/cli/bin'), { recursive: true });
    writeFileSync(cached, '');
    expect(howToRun(cached, { npm_command: 'exec' })).toBe('npx @rcs/cli');
  });
});
