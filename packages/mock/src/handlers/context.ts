import type { Authenticator } from '../auth.js';
import type { Faults } from '../faults.js';
import type { MockStore } from '../store.js';

/** A clock the mock reads for every time-dependent answer (D18); tests inject a virtual one. */
export interface Clock {
  now(): number;
}

/** Everything a handler needs, shared by all handlers of one mock. */
export interface HandlerContext {
  store: MockStore;
  auth: Authenticator;
  faults: Faults;
  clock: Clock;
  processingMs: number;
}
