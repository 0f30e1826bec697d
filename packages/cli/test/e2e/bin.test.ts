// The `rcs` command npm links (package.json "bin") is bin/rcs.js, which loads the built bundle.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO } from './helpers.js';

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
