/**
 * The read-ahead window of each export of a run (issue 13's flat memory, issue 6's speed).
 *
 * A lone export may hold twice the concurrency budget in pages requested and not yet written:
 * while a slow page holds the head of its reorder buffer, the pages behind it that already
 * arrived must not stop new requests, or most of the budget would sit idle (head-of-line
 * blocking). When the nine exports of `rcs export all` run together they share one budget, so
 * each needs only its share of that window: every page it holds beyond it is a parsed page
 * waiting in memory, nine times over. So each export's window is its share of twice the budget
 * among the exports still running (never below MIN_WINDOW, nor above the whole), and grows as the others finish: the
 * last export running has the whole window again.
 */
export const MIN_WINDOW = 4;

export interface WindowShare {
  /** An export starts: its window, asked each time it requests pages, and its end. */
  enter(): { window: () => number; leave: () => void };
}

export function windowShare(concurrency: number): WindowShare {
  const whole = concurrency * 2;
  let running = 0;
  const window = () =>
    Math.min(whole, Math.max(MIN_WINDOW, Math.ceil(whole / Math.max(1, running))));
  return {
    enter() {
      running++;
      let left = false;
      return {
        window,
        leave: () => {
          if (left) return;
          left = true;
          running--;
        },
      };
    },
  };
}
