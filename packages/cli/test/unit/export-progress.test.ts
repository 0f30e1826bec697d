import { describe, expect, it } from 'vitest';
import {
  createExportProgress,
  formatCount,
  renderTable,
} from '../../src/output/export-progress.js';
import type { Progress } from '../../src/output/progress.js';

/** A progress component that keeps the live lines it was given, and whether it was stopped. */
function recorder() {
  const lines = new Map<string, string>();
  let stopped: { keep?: boolean } | undefined;
  const progress: Progress = {
    set: (id, text) => lines.set(id, text),
    done: (id) => lines.delete(id),
    stop: (options = {}) => {
      stopped = options;
    },
  };
  return { progress, lines, stopped: () => stopped };
}

describe('export progress', () => {
  it('one line per export with count/total, percent and rate; the last frame stays on stop', () => {
    let t = 0;
    const r = recorder();
    const progress = createExportProgress(r.progress, ['users', 'real-call-sessions'], () => t);
    expect(r.lines.get('real-call-sessions')).toBe('real-call-sessions  0/?  0 rec/s');
    t = 2000;
    progress.update('users', 1500, 3000);
    expect(r.lines.get('users')).toBe('users               1,500/3,000 50%  750 rec/s');
    t = 4000;
    progress.finish('users', 'done');
    t = 9000; // a finished export's rate no longer moves
    progress.update('real-call-sessions', 10, 0);
    expect(r.lines.get('users')).toBe('users               1,500/3,000 50%  375 rec/s  done');
    expect(r.lines.get('real-call-sessions')).toBe('real-call-sessions  10/0  1 rec/s');
    progress.stop();
    expect(r.stopped()).toEqual({ keep: true });
  });

  it('ignores a resource it was not started with', () => {
    const r = recorder();
    const progress = createExportProgress(r.progress, ['users']);
    progress.update('teams', 1, 2);
    progress.finish('teams', 'done');
    expect([...r.lines.keys()]).toEqual(['users']);
  });

  it('renders an aligned summary table', () => {
    expect(
      renderTable(
        ['export', 'records', 'file'],
        [
          ['users', '1,234', 'users.csv'],
          ['teams', '5', 'teams.csv'],
        ],
      ),
    ).toBe('export  records  file\nusers     1,234  users.csv\nteams         5  teams.csv\n');
  });
});

describe('formatCount', () => {
  it('groups digits by thousands with commas, whatever the locale', () => {
    expect([0, 999, 1000, 1_234_567, -1000].map(formatCount)).toEqual([
      '0',
      '999',
      '1,000',
      '1,234,567',
      '-1,000',
    ]);
  });
});
