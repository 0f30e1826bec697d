import { describe, expect, it } from 'vitest';
import { MIN_WINDOW, windowShare } from '../src/window-share.js';

// Each export's read-ahead window (issue 13's flat memory): its share of twice the budget while
// the exports of a run read together, the whole of it once it reads alone.

describe('windowShare', () => {
  it('gives a lone export twice the budget', () => {
    const { window } = windowShare(8).enter();
    expect(window()).toBe(16);
  });

  it('shares twice the budget among the exports running, never below MIN_WINDOW', () => {
    const share = windowShare(32);
    const nine = Array.from({ length: 9 }, () => share.enter());
    expect(nine[0]!.window()).toBe(Math.ceil(64 / 9));
    const small = windowShare(8);
    const all = Array.from({ length: 9 }, () => small.enter());
    expect(all[0]!.window()).toBe(MIN_WINDOW);
  });

  it('grows back as the others finish, and the last one has the whole window', () => {
    const share = windowShare(8);
    const [a, b, c] = [share.enter(), share.enter(), share.enter()];
    expect(a.window()).toBe(Math.max(MIN_WINDOW, Math.ceil(16 / 3)));
    b.leave();
    expect(a.window()).toBe(8);
    c.leave();
    c.leave(); // a second leave counts once
    expect(a.window()).toBe(16);
  });

  it('never gives more than twice the budget (concurrency 1)', () => {
    const share = windowShare(1);
    const a = share.enter();
    share.enter();
    expect(a.window()).toBe(2);
  });
});
