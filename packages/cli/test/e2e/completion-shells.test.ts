// `rcs completion zsh|fish` run in the real shells (cli.md: completion for bash, zsh and fish).
// .ci/run installs zsh and fish; a machine without them skips these tests and says so.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli, tempDir } from './helpers.js';

const has = (shell: string) => spawnSync(shell, ['--version'], { stdio: 'ignore' }).status === 0;
const dir = tempDir();

beforeAll(() => {
  assertBuilt();
});

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell], { cwd: dir });
  expect(r.code).toBe(0);
  const file = join(dir, `rcs.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

describe.skipIf(!has('zsh'))('zsh', () => {
  it('the script loads in zsh and completes commands, export names and options', async () => {
    const file = await script('zsh');
    execFileSync('zsh', ['-n', file]);
    // bashcompinit runs the completion function under `emulate sh` (0-based arrays); zsh then
    // filters the candidates by the typed prefix, so the word being completed must be among them.
    const candidates = (words: string[]) =>
      execFileSync(
        'zsh',
        [
          '-f',
          '-c',
          `source ${file}; whence -w compdef >/dev/null || exit 9; emulate sh; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _rcs_complete; print -l -- "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n');
    expect(candidates(['rcs', 'exp'])).toContain('export');
    expect(candidates(['rcs', 'export', 'us'])).toEqual(
      expect.arrayContaining(['users', 'mission-assignments', 'all']),
    );
    expect(candidates(['rcs', 'upload', '--conc'])).toContain('--concurrency');
    expect(candidates(['rcs', 'sessions', 'w'])).toEqual(expect.arrayContaining(['get', 'wait']));
  });
});

describe.skipIf(!has('fish'))('fish', () => {
  it('fish itself completes commands, export names, sub-commands and options', async () => {
    const file = await script('fish');
    execFileSync('fish', ['--no-execute', file]);
    const complete = (line: string) =>
      execFileSync('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], {
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]);
    expect(complete('rcs exp')).toEqual(['export']);
    expect(complete('rcs export us')).toEqual(['users']);
    expect(complete('rcs export mission-')).toEqual(['mission-assignments']);
    expect(complete('rcs upload --conc')).toEqual(['--concurrency']);
    expect(complete('rcs sessions ')).toEqual(['get', 'wait']);
    expect(complete('rcs completion ')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
  });
});
