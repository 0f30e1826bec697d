/**
 * V8 heap settings for a long export (issue 6's flat memory, issue 11's CPU; figures in
 * bench/export/README.md).
 *
 * What an export holds is small (a few pages and an 8-byte-per-id set), but it allocates fast
 * (every page is parsed, then encoded). Left alone, V8 answers that by growing its young
 * generation to 64 MB, which alone doubled peak RSS. Kept at its initial 1-2 MB (as before issue
 * 11), half of what a scavenge sees still lives (a page lives until it is written), so it is
 * promoted and the old generation is marked and compacted every ~80 ms: a quarter of the
 * exporter's CPU was the garbage collector. The young generation is therefore let grow to
 * YOUNG_TARGET_MB per semi-space and then held there (growth factor 1): at 4 MB, `rcs export all`
 * of a million records needs ~11 % less CPU at the same peak RSS.
 *
 * `--heap-growing-percent=10` lets the old generation's limit grow by 10 % after each major GC
 * instead of V8's dynamic factor: the heap holds little that lives, so frequent, cheap
 * mark-compacts keep it near what it uses. V8 flags set at run time are best effort (both are
 * read while the heap works, not only at start-up); a V8 without them only uses more memory.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export const YOUNG_TARGET_MB = 4;
const CHECK_EVERY_MS = 25;

function setFlag(flag: string): boolean {
  try {
    setFlagsFromString(flag);
    return true;
  } catch {
    return false;
  }
}

/**
 * The young generation's semi-space capacity in MB: V8's `new_space` commits two semi-spaces
 * (objects are copied from one to the other), so its size is twice the capacity that
 * `--trace-gc-nvp` shows as new_space_capacity and `--max-semi-space-size` sets.
 */
function semiSpaceMb(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space === undefined ? Number.NaN : space.space_size / 2 / (1024 * 1024);
}

/** Watches the young generation until it reaches its target, then holds it there. */
export interface HeapWatch {
  /** Cheap; call it often (every page): a timer tick waits while a long synchronous step runs. */
  check(): void;
}

/**
 * Applies the settings. The young generation is checked every CHECK_EVERY_MS (an unref'd timer
 * that never keeps the process alive) and at each `check()`, until it reaches YOUNG_TARGET_MB.
 */
export function keepHeapSmall(): HeapWatch {
  setFlag('--heap-growing-percent=10');
  let watching = semiSpaceMb() < YOUNG_TARGET_MB && setFlag('--semi-space-growth-factor=2');
  let timer: ReturnType<typeof setInterval> | undefined;
  const hold = () => {
    if (timer !== undefined) clearInterval(timer);
    watching = false;
    setFlag('--semi-space-growth-factor=1');
  };
  const check = () => {
    if (watching && semiSpaceMb() >= YOUNG_TARGET_MB) hold();
  };
  if (watching) {
    timer = setInterval(check, CHECK_EVERY_MS);
    timer.unref();
  } else {
    hold();
  }
  return { check };
}
