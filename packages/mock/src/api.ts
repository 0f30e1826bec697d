import type { RequestHandler } from 'msw';
import { Authenticator } from './auth.js';
import { type Dataset, datasetFromFixture } from './dataset.js';
import { DEFAULT_DEMO_SEED, generateDemoDataset } from './demo-data.js';
import { type FaultOptions, Faults } from './faults.js';
import { type Fixture, loadFixture } from './fixture.js';
import type { Clock } from './handlers/context.js';
import { type ExportRoute, exportRoutes } from './handlers/exports.js';
import { createHandlers } from './handlers/index.js';
import { infoOf, type MockInfo } from './info.js';
import { sessionView } from './lifecycle.js';
import { type CreatedUser, MockStore, type OrgState } from './store.js';
import type { RealCallSession, UserExportRecord } from './wire.js';

export interface MockApiOptions {
  /** A fixture object, always validated with `loadFixture` (a hand-built one too). Default: demo data. */
  fixture?: Fixture | unknown;
  /** Seed of the demo dataset and of runtime ids and faults (reproducible runs). Default 42. */
  seed?: number;
  /** Size of the demo dataset: total export records. Default 2000; ignored with a fixture. */
  records?: number;
  /** "Night N" of the demo dataset (FIXTURE.md): default 0; ignored with a fixture. */
  day?: number;
  /** D18: time from creation to DONE, in ms of the clock. Default 2000; 0 allowed. */
  processingMs?: number;
  /** The clock every time-dependent answer reads (D18). Default: Date.now. */
  clock?: Clock;
  faults?: FaultOptions;
}

/** A read-only look at one organization's state, for tests and tools. */
export interface OrgView {
  id: string;
  name: string;
  /** Every user, base data plus created ones, in D9 order (materialised: O(n)). */
  readonly users: UserExportRecord[];
  /** Every session as the API would answer it now (materialised: O(n)). */
  readonly sessions: RealCallSession[];
  userCount: number;
  sessionCount: number;
  /** Users the mock created (R3 reps, R5 participants), oldest first. */
  createdUsers: CreatedUser[];
  /** Sessions created through the API, as the API would answer them now. */
  readonly createdSessions: RealCallSession[];
  findUserByEmail(email: string): UserExportRecord | undefined;
  session(id: string): RealCallSession | undefined;
}

export interface MockState {
  /** Back to the starting data: created users and sessions, IdP refusals, rate windows reset. */
  reset(): void;
  org(orgId: string): OrgView;
  /** Users and sessions created through the API, over all organizations. */
  counts(): { createdUsers: number; createdSessions: number };
}

export interface MockApi {
  handlers: RequestHandler[];
  /**
   * The nine export GETs by exact path (`/api/v1/data-exports/…`), the same code as their MSW
   * handlers: a server may answer them directly (`rcs mock` does) to skip MSW's matching.
   */
  exportRoutes: ReadonlyMap<string, ExportRoute>;
  state: MockState;
  info: MockInfo;
}

const DEFAULT_PROCESSING_MS = 2000;

/** The 11 operations as MSW handlers over an org-scoped in-memory store. */
export function createMockApi(options: MockApiOptions = {}): MockApi {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const processingMs = options.processingMs ?? DEFAULT_PROCESSING_MS;
  if (!Number.isFinite(processingMs) || processingMs < 0) {
    throw new RangeError(`processingMs must be a number >= 0 (got ${processingMs})`);
  }
  const clock: Clock = options.clock ?? { now: () => Date.now() };
  let dataset: Dataset;
  let info: MockInfo;
  if (options.fixture !== undefined) {
    // Validated again even when it came from loadFixture: cheap, and a hand-built object is checked.
    const fixture = loadFixture(options.fixture);
    dataset = datasetFromFixture(fixture);
    info = infoOf(dataset);
  } else {
    ({ dataset, info } = generateDemoDataset({ seed, records: options.records, day: options.day }));
  }

  const auth = new Authenticator(dataset);
  // The context is mutated in place by reset(), so handlers already installed keep working.
  const ctx = {
    store: new MockStore(dataset, seed),
    auth,
    faults: new Faults(options.faults ?? {}, seed),
    clock,
    processingMs,
  };
  const routes = exportRoutes(ctx);
  const handlers = createHandlers(ctx, routes);

  const view = (org: OrgState): OrgView => {
    const now = () => {
      const t = clock.now();
      ctx.store.advance(t);
      return t;
    };
    return {
      id: org.id,
      name: org.data.name,
      get users() {
        now();
        return org.users.slice(0, org.users.length);
      },
      get sessions() {
        const t = now();
        return org.sessions.slice(0, org.sessions.length).map((s) => sessionView(s, t));
      },
      get userCount() {
        now();
        return org.users.length;
      },
      get sessionCount() {
        return org.sessions.length;
      },
      get createdUsers() {
        now();
        return [...org.createdUsers];
      },
      get createdSessions() {
        const t = now();
        return org.liveSessions.map((s) => sessionView(s, t));
      },
      findUserByEmail: (email) => {
        now();
        return org.findUserByEmail(email);
      },
      session: (id) => {
        const t = now();
        const s = org.findSession(id);
        return s ? sessionView(s, t) : undefined;
      },
    };
  };

  const state: MockState = {
    reset() {
      ctx.store = new MockStore(dataset, seed);
      ctx.faults = new Faults(options.faults ?? {}, seed);
    },
    org: (orgId) => view(ctx.store.org(orgId)),
    counts() {
      ctx.store.advance(clock.now());
      let createdUsers = 0;
      let createdSessions = 0;
      for (const o of ctx.store.orgs.values()) {
        createdUsers += o.createdUsers.length;
        createdSessions += o.liveSessions.length;
      }
      return { createdUsers, createdSessions };
    },
  };
  return { handlers, exportRoutes: routes, state, info };
}
