import { describe, expect, it } from 'vitest';
import { createProgress, renderTable } from '../../../src/export/progress.js';

describe('export progress', () => {
  it('draws one line per export with count/total, percent and rate, redrawn in place', () => {
    let out = '';
    let t = 0;
    const progress = createProgress(
      { write: (s: string) => (out += s) },
      ['users', 'real-call-sessions'],
      true,
      () => t,
    );
    t = 2000;
    progress.update('users', 1500, 3000);
    progress.stop();
    expect(out).toContain('users               1,500/3,000 50%  750 rec/s');
    expect(out).toContain('real-call-sessions  0/?');
    out = '';
    progress.finish('users', 'done');
    progress.stop();
    // Second frame moves the cursor up over the first.
    expect(out.startsWith('\x1b[2A')).toBe(true);
    expect(out).toContain('done');
  });

  it('writes nothing when disabled (not a TTY, or --quiet)', () => {
    let out = '';
    const progress = createProgress({ write: (s: string) => (out += s) }, ['users'], false);
    progress.update('users', 1, 2);
    progress.finish('users', 'done');
    progress.stop();
    expect(out).toBe('');
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
