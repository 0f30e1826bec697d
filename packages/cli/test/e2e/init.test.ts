/**
 * `rcs init nightly [DIR]`: the nightly job of the repository's examples/, written from the
 * files the package ships (templates/nightly), each created exclusively, all or nothing.
 */
import {
  accessSync,
  constants,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, REPO, runCli, tempDir } from './helpers.js';

const TEMPLATES = join(REPO, 'packages/cli/templates/nightly');
const FILES = ['README.md', 'crontab.txt', 'nightly-load.mjs', 'nightly.sh', 'rcs-nightly.yml'];

describe('rcs init nightly', () => {
  it('writes the recipe, byte for byte the examples, and prints a crontab line with absolute paths', async () => {
    assertBuilt();
    const cwd = tempDir('rcs-init-');
    const r = await runCli(['init', 'nightly'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(cwd, 'rcs-nightly');
    expect(readdirSync(dir).sort()).toEqual(FILES);
    for (const name of FILES) {
      expect(readFileSync(join(dir, name), 'utf8'), name).toBe(
        readFileSync(join(TEMPLATES, name), 'utf8'),
      );
    }
    for (const name of ['nightly.sh', 'nightly-load.mjs'])
      accessSync(join(dir, name), constants.X_OK);
    // cron's PATH lacks node, and `npx rcs` outside the project goes to the registry.
    expect(r.stdout).toContain(
      `PATH=${[...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':')} RCS_PROFILE=prod ${join(dir, 'nightly.sh')} >>`,
    );
    // The repository's examples are these files, not copies of them.
    for (const example of [
      'examples/warehouse/nightly-load.mjs',
      'examples/cron/nightly.sh',
      'examples/cron/crontab.txt',
      'examples/github-actions/rcs-nightly.yml',
    ]) {
      expect(realpathSync(join(REPO, example)), example).toMatch(new RegExp(`^${TEMPLATES}/`));
    }
  });

  it('never replaces a file: one already there is named, nothing is written, exit 2', async () => {
    const cwd = tempDir('rcs-init-');
    const dir = join(cwd, 'job');
    await runCli(['init', 'nightly', 'job'], { cwd });
    writeFileSync(join(dir, 'nightly.sh'), 'my own\n');
    const again = await runCli(['init', 'nightly', 'job'], { cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/README\.md already exists; nothing was written/);
    expect(readFileSync(join(dir, 'nightly.sh'), 'utf8')).toBe('my own\n');

    // One file of the user's in a directory (the 2nd of the recipe): named, no other written.
    const mine = tempDir('rcs-init-mine-');
    writeFileSync(join(mine, 'crontab.txt'), 'mine\n');
    const one = await runCli(['init', 'nightly', mine], { cwd });
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(`${join(mine, 'crontab.txt')} already exists`);
    expect(readdirSync(mine)).toEqual(['crontab.txt']);
    expect(readFileSync(join(mine, 'crontab.txt'), 'utf8')).toBe('mine\n');

    const unknown = await runCli(['init', 'weekly'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/nightly/);
  });

  it('rcs export --help says where EXPORT.md and FORMATS.md are, and both are there', async () => {
    const r = await runCli(['export', '--help'], { cwd: tempDir('rcs-init-') });
    const dir = /Both are in (\S+) \(the installed @rcs\/cli\)/.exec(r.stdout)?.[1];
    expect(dir, r.stdout).toBeDefined();
    for (const doc of ['EXPORT.md', 'FORMATS.md']) accessSync(join(dir!, doc), constants.R_OK);
    // The CLI's copy of the change contract is the export engine's own text.
    expect(readFileSync(join(dir!, 'FORMATS.md'), 'utf8')).toBe(
      readFileSync(join(REPO, 'packages/export/FORMATS.md'), 'utf8'),
    );
  });
});
