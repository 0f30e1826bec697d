import type { RealCallSession } from '@rcs/client';
import { expect } from 'vitest';
import { createRatePacer } from '../src/adaptive-rate.js';

export const BASE = 'https://rcs.test';
export const API_KEY = 'rcs_test_key_8f3a9c2e71d04b5a';
export const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJvcmciOiJvcmctMSJ9.c2lnbmF0dXJlLXNlY3JldA';
export const SESSION_ID = '9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4';

/** A session as the service returns it (D18), in the given state. */
export function sessionFixture(state: RealCallSession['state']): RealCallSession {
  const t = '2026-01-01T00:00:00Z';
  const sub = state === 'DONE' ? 'DONE' : 'PENDING';
  return {
    id: SESSION_ID,
    createdAt: t,
    lastUpdatedAt: t,
    userId: '0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f',
    call: { id: 'call-1', createdAt: t, lastUpdatedAt: t, assistantReferenceId: 'a-1', state: sub },
    analysis: { id: 'an-1', createdAt: t, lastUpdatedAt: t, state: sub, items: [], score: 72 },
    kpis: { id: 'k-1', createdAt: t, lastUpdatedAt: t, state: sub },
    language: 'en',
    state,
    completed: state === 'DONE',
    type: 'REAL_CALL',
    participantUserIds: [],
  } as RealCallSession;
}

/** A D1 problem+json body. */
export function problem(status: number, code: string, title: string, detail: string) {
  return {
    type: `https://rcs.test/problems/${code}`,
    title,
    status,
    detail,
    code,
  };
}

/** A rate pacer on a clock the test moves (`at(ms)`); acquire() resolves at once when no wait is due. */
export function paced() {
  let now = 0;
  const pacer = createRatePacer(() => now);
  return {
    pacer,
    at: (t: number) => {
      now = t;
    },
  };
}

/**
 * A cut of the pacer's rate after a 429 (AIMD's decrease): below what the service accepted in the
 * second it measured, so the next second asks for less than was refused, and not collapsed to
 * less than half of it. Returns the rate for the checks that follow.
 */
export function expectCutFrom(rate: number | undefined, accepted: number): number {
  expect(rate).toBeLessThan(accepted);
  expect(rate).toBeGreaterThanOrEqual(accepted / 2);
  return rate as number;
}
