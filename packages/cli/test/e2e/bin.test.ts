// The `rcs` command npm links (package.json "bin") is bin/rcs.js, which loads the built bundle.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO, tempDir } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'packages/cli/package.json'), 'utf8'));

beforeAll(() => {
  assertBuilt();
});

describe('the rcs bin', () => {
  it('is a committed file (so npm ci links it before any build) that runs the bundle', () => {
    const bin = join(REPO, 'packages/cli', pkg.bin.rcs);
    expect(pkg.bin.rcs).toBe('./bin/rcs.js');
    const out = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(out.trim()).toBe(pkg.version);
    const help = execFileSync(process.execPath, [bin, 'export', '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/Usage: rcs export/);
  });
});

describe("the wiring's code cache (start-up, bench/cli)", () => {
  const bin = join(REPO, 'packages/cli', pkg.bin.rcs);
  const run = (args: string[], env: Record<string, string>) =>
    execFileSync(process.execPath, [bin, ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
  /** Node's compile cache puts its files in a sub-directory per Node version. */
  const cacheFiles = (dir: string) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /rcs-wiring-[0-9a-f]+$/.test(f),
    );

  it('is written after the first run, used by the next ones, and a foreign one is ignored', () => {
    const dir = tempDir('rcs-cache-');
    const env = { NODE_COMPILE_CACHE: dir };
    const help = run(['--help'], env);
    const [file] = cacheFiles(dir);
    expect(file).toBeDefined();
    const cache = readFileSync(join(dir, file!));
    // Key line (the build hash of dist/wiring.js, its length and mtime), then V8's data.
    expect(cache.toString('latin1', 0, 13)).toBe('// rcs-wiring');
    expect(cache.length).toBeGreaterThan(10_000);
    expect(run(['--help'], env)).toBe(help);
    expect(readFileSync(join(dir, file!)).equals(cache)).toBe(true);
    // Another build's cache (another key) is not used, and is replaced.
    writeFileSync(join(dir, file!), `// rcs-wiring 0000 1 2\n${'x'.repeat(100)}`);
    expect(run(['--version'], env).trim()).toBe(pkg.version);
    expect(readFileSync(join(dir, file!)).toString('latin1', 0, 20)).toBe(
      cache.toString('latin1', 0, 20),
    );
    // Made by another command, it holds the help code all the same (warmHelp): about as big.
    const other = tempDir('rcs-cache-');
    run(['--version'], { NODE_COMPILE_CACHE: other });
    const [made] = cacheFiles(other);
    expect(readFileSync(join(other, made!)).length).toBeGreaterThan(cache.length * 0.9);
    // Same output with Node's compile cache off (then there is no wiring cache either).
    expect(run(['--help'], { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(help);
  });
});
