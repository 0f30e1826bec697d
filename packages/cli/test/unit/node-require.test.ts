import * as childProcess from 'node:child_process';
import { describe, expect, it } from 'vitest';
import '../../src/node-require.js';

describe('the global require the bundled commander uses', () => {
  const req = (globalThis as { require?: NodeJS.Require }).require;

  it('exists', () => {
    expect(typeof req).toBe('function');
  });

  it('hands out child_process lazily, with its real functions', () => {
    const cp = req!('child_process') as typeof childProcess;
    expect(cp.spawn).toBe(childProcess.spawn);
    expect(cp.execFileSync).toBe(childProcess.execFileSync);
  });

  it('resolves other modules as Node does', () => {
    expect(req!('events')).toBe(req!('node:events'));
  });
});
