/**
 * Parallel uploads must keep R2/R3 and D24 true: one user per email, never more users than
 * seats, and every rejection still creates nothing (R9).
 */
import { describe, expect, it } from 'vitest';
import { boot, PLAIN } from './helpers.js';

describe('parallel creation', () => {
  it('10 parallel uploads for one new email create exactly one user, all sessions attributed to it', async () => {
    const m = await boot();
    try {
      const before = await m.totals();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          m.create({ transcript: PLAIN, meetingName: 'x', email: 'race@acme.com' }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
      expect(new Set(answers.map((a) => a.body.userId)).size).toBe(1);
      const after = await m.totals();
      expect(after.users).toBe(before.users + 1);
      expect(after.sessions).toBe(before.sessions + 10);
    } finally {
      await m.close();
    }
  });

  it('12 parallel new reps with 5 free seats: exactly 5 created, 7 refused with 403 (D24, R9)', async () => {
    const m = await boot();
    try {
      const before = await m.totals();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          m.create({ transcript: PLAIN, meetingName: 'x', email: `par${i}@acme.com` }),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(5);
      expect(statuses.filter((s) => s === 403)).toHaveLength(7);
      const after = await m.totals();
      expect(after.users).toBe(10);
      expect(after.sessions).toBe(before.sessions + 5);
    } finally {
      await m.close();
    }
  });
});
