import { ProblemError } from './problem.js';
import { hash32, rng } from './random.js';

/** Fault injection for clients' resilience tests (`rcs mock --latency-ms …`). */
export interface FaultOptions {
  /** Delay before every answer, in milliseconds of real time. */
  latencyMs?: number;
  /** Share (0–1) of requests failed before any state change: 503, 502 on reads, or a dropped connection. */
  faultRate?: number;
  /** Requests per second per credential; over it: 429 with Retry-After (D2). */
  rateLimit?: number;
  /** Drop the connection after a session was created (true = always, or a share 0–1). */
  dropAfterCreate?: boolean | number;
}

export type FaultKind = 'create' | 'read';

/** What to do instead of answering: a problem answer, or a dropped connection. */
export type Fault = { kind: 'problem'; problem: ProblemError } | { kind: 'drop' };

export class Faults {
  private readonly next: () => number;
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly options: FaultOptions,
    seed: number,
  ) {
    for (const [name, v] of Object.entries(options)) {
      if (typeof v === 'number' && (!Number.isFinite(v) || v < 0)) {
        throw new RangeError(`faults.${name} must be a finite number >= 0 (got ${v})`);
      }
    }
    if ((options.faultRate ?? 0) > 1)
      throw new RangeError('faults.faultRate must be between 0 and 1');
    this.next = rng(hash32(seed, 0xfa17));
  }

  get latencyMs(): number {
    return this.options.latencyMs ?? 0;
  }

  /** D2: N requests per second per credential (fixed one-second windows on the mock's clock). */
  rateLimit(credential: string, now: number): ProblemError | undefined {
    const limit = this.options.rateLimit;
    if (!limit) return undefined;
    const start = now - (now % 1000);
    let w = this.windows.get(credential);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(credential, w);
      if (this.windows.size > 10_000) this.windows = new Map([[credential, w]]);
    }
    w.count++;
    if (w.count <= limit) return undefined;
    const retryAfter = Math.max(1, Math.ceil((start + 1000 - now) / 1000));
    return new ProblemError(
      429,
      'rate_limited',
      `More than ${limit} requests per second; retry after ${retryAfter} s.`,
      undefined,
      { 'retry-after': String(retryAfter) },
    );
  }

  /** A random failure, decided before anything is read or changed. 502 only where safe: reads. */
  injected(kind: FaultKind): Fault | undefined {
    const rate = this.options.faultRate ?? 0;
    if (rate === 0 || this.next() >= rate) return undefined;
    const choices = kind === 'read' ? 3 : 2;
    const pick = Math.floor(this.next() * choices);
    if (pick === 0) {
      return {
        kind: 'problem',
        problem: new ProblemError(
          503,
          'service_unavailable',
          'Injected fault: the service is unavailable; nothing was changed.',
          undefined,
          { 'retry-after': '1' },
        ),
      };
    }
    if (pick === 1) return { kind: 'drop' };
    return {
      kind: 'problem',
      problem: new ProblemError(
        502,
        'bad_gateway',
        'Injected fault: bad gateway; nothing was changed.',
      ),
    };
  }

  dropAfterCreate(): boolean {
    const d = this.options.dropAfterCreate;
    if (d === undefined || d === false) return false;
    if (d === true) return true;
    return this.next() < d;
  }
}
