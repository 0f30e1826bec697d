// `rcs --help` and `rcs --version` write commander's output without Node's stdout stream when
// stdout is a file, a pipe or /dev/null (start-up, bench/cli). The bytes must be the very ones the
// stream path writes (a socket pipe, as spawn's, or a terminal still gets the stream).
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  certainlyNotATerminal,
  colorFromEnv,
  writeDirect,
} from '../../src/output/direct-stdout.js';
import { assertBuilt, REPO, tempDir } from './helpers.js';

const BIN = join(REPO, 'packages/cli/bin/rcs.js');

/** Every help screen and the version: the root, each command and each subcommand. */
const SCREENS = [
  ['--help'],
  ['--version'],
  ['help'],
  ['upload', '--help'],
  ['check', '--help'],
  ['sessions', '--help'],
  ['sessions', 'get', '--help'],
  ['sessions', 'wait', '--help'],
  ['export', '--help'],
  ['mock', '--help'],
  ['demo', '--help'],
  ['config', '--help'],
  ['completion', '--help'],
  ['help', 'export'],
];

beforeAll(() => {
  assertBuilt();
});

describe('commander output written directly (not through the stream)', () => {
  const dir = tempDir('rcs-direct-');
  const env = { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined };

  it.each(SCREENS.map((args) => [args.join(' '), args]))(
    'rcs %s: a file and a shell pipe get the bytes a socket pipe gets',
    (_, args) => {
      // spawn's own pipes are sockets: the stream path.
      const viaStream = execFileSync(process.execPath, [BIN, ...args], { env });
      expect(viaStream.length).toBeGreaterThan(0);
      const file = join(dir, 'out.txt');
      const fd = openSync(file, 'w');
      const r = spawnSync(process.execPath, [BIN, ...args], {
        env,
        stdio: ['ignore', fd, 'pipe'],
      });
      closeSync(fd);
      expect(r.status).toBe(0);
      expect(r.stderr.toString()).toBe('');
      expect(readFileSync(file).equals(viaStream)).toBe(true);
      const quoted = [BIN, ...args].map((a) => `'${a}'`).join(' ');
      const viaFifo = execFileSync('sh', ['-c', `'${process.execPath}' ${quoted} | cat`], { env });
      expect(viaFifo.equals(viaStream)).toBe(true);
    },
  );

  it('a reader that left (EPIPE) ends the run quietly with 0, as with the stream', () => {
    for (let i = 0; i < 5; i++) {
      const r = spawnSync('sh', ['-c', `'${process.execPath}' '${BIN}' --help | true`], {
        env,
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
    }
  });

  it("loads none of Node's stream modules for it (what the direct path saves)", () => {
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `const { writeSync } = process.getBuiltinModule('fs');
process.on('exit', () => writeSync(2, JSON.stringify(process.moduleLoadList)));
await import(${JSON.stringify(BIN)});\n`,
    );
    const loaded = (stdout: 'ignore' | 'pipe') => {
      const r = spawnSync(process.execPath, [probe, '--help'], {
        stdio: ['ignore', stdout, 'pipe'],
      });
      return JSON.parse(r.stderr.toString()) as string[];
    };
    expect(loaded('ignore')).not.toContain('NativeModule stream');
    expect(loaded('pipe')).toContain('NativeModule stream'); // a socket: Node's stream, as before
  });

  it('/dev/null, as the start-up bench runs it', () => {
    const r = spawnSync(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'ignore', 'pipe'] });
    expect(r.status).toBe(0);
    expect(r.stderr.toString()).toBe('');
  });
});

describe('direct-stdout', () => {
  it('knows files and /dev/null are no terminal, and is not sure of anything else', () => {
    const dir = tempDir('rcs-direct-');
    const fd = openSync(join(dir, 'f'), 'w');
    const devNull = openSync('/dev/null', 'w');
    try {
      expect(certainlyNotATerminal(fd)).toBe(process.platform !== 'win32');
      expect(certainlyNotATerminal(devNull)).toBe(process.platform !== 'win32');
    } finally {
      closeSync(fd);
      closeSync(devNull);
    }
    expect(certainlyNotATerminal(fd)).toBe(false); // closed: fstat fails
  });

  it('hands a failed write to onError, never to the fallback', () => {
    const dir = tempDir('rcs-direct-');
    writeFileSync(join(dir, 'f'), '');
    const fd = openSync(join(dir, 'f'), 'r'); // read-only: write(2) fails with EBADF
    const errors: string[] = [];
    try {
      writeDirect(
        fd,
        'text',
        () => {
          throw new Error('no fallback for EBADF');
        },
        (e) => errors.push(e.code ?? ''),
      );
    } finally {
      closeSync(fd);
    }
    expect(errors).toEqual(['EBADF']);
  });

  it("colours as commander's own test does", () => {
    expect(colorFromEnv({})).toBeUndefined();
    expect(colorFromEnv({ NO_COLOR: '1' })).toBe(false);
    expect(colorFromEnv({ NO_COLOR: '' })).toBeUndefined();
    expect(colorFromEnv({ FORCE_COLOR: '0' })).toBe(false);
    expect(colorFromEnv({ FORCE_COLOR: 'false' })).toBe(false);
    expect(colorFromEnv({ FORCE_COLOR: '1' })).toBe(true);
    expect(colorFromEnv({ CLICOLOR_FORCE: '' })).toBe(true);
  });
});
