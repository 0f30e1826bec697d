import { type Collection, slice } from './collection.js';
import type { Dataset } from './dataset.js';
import { SCORECARDS } from './demo/content.js';
import { type Counts, demoOrg, type OrgPlan } from './demo/org.js';
import type { Fixture } from './fixture.js';
import { infoOf, type MockInfo } from './info.js';
import { hash32 } from './random.js';

/**
 * The demo dataset (no fixture): deterministic from `seed`, sized by `records` (the total of
 * export records over all organizations). Record `i` of every list is computed on demand from
 * (seed, i), and ids and emails map back to their index, so a million records start in
 * milliseconds and cost memory only while a page is being answered.
 */
export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_RECORDS = 2000;
/** Below this the minimum counts per list (a few scorecards, missions, …) do not fit. */
export const MIN_DEMO_RECORDS = 60;

export interface DemoOptions {
  seed?: number;
  records?: number;
}

const total = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);

function countsFor(records: number): Counts {
  const share = (w: number, min: number, max = Number.POSITIVE_INFINITY) =>
    Math.min(max, Math.max(min, Math.floor(records * w)));
  const c: Counts = {
    scorecards: share(0.005, 3, SCORECARDS.length * 10),
    missions: share(0.01, 4, 500),
    tracks: share(0.005, 3, 200),
    teams: share(0.005, 2, 500),
    users: share(0.1, 6),
    sprints: share(0.02, 1),
    trackAssignments: share(0.15, 2),
    missionAssignments: share(0.25, 2),
    realCallSessions: 0,
  };
  c.realCallSessions = Math.max(1, records - total(c));
  return c;
}

export interface DemoDataset {
  dataset: Dataset;
  info: MockInfo;
}

/** The demo organizations: a main one with every feature, and a small neighbour for D23 probes. */
export function generateDemoDataset(options: DemoOptions = {}): DemoDataset {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const records = options.records ?? DEFAULT_DEMO_RECORDS;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer (got ${seed})`);
  if (!Number.isSafeInteger(records) || records < MIN_DEMO_RECORDS) {
    throw new RangeError(`records must be an integer >= ${MIN_DEMO_RECORDS} (got ${records})`);
  }
  const neighbour = countsFor(MIN_DEMO_RECORDS / 2);
  const plans: OrgPlan[] = [
    {
      index: 0,
      name: 'Demo Sales',
      domain: 'demo-sales.example',
      autoCreateUsers: true,
      counts: countsFor(records - total(neighbour)),
    },
    {
      index: 1,
      name: 'Neighbour Org',
      domain: 'neighbour.example',
      autoCreateUsers: false,
      counts: neighbour,
    },
  ];
  const organizations = plans.map((p) => demoOrg(seed, p));
  const jwtSecret = `demo-jwt-secret-${hash32(seed, 11).toString(16)}-${hash32(seed, 12).toString(16)}`;
  const dataset: Dataset = {
    jwtSecret,
    identityProvider: {
      // An address the identity provider knows outside every organization (409), and one it
      // refuses once (502), so a newcomer can try both.
      existingEmails: ['taken@demo-sales.example'],
      refuse: { 'flaky@demo-sales.example': 1 },
    },
    organizations,
  };
  return { dataset, info: infoOf(dataset) };
}

/**
 * The demo dataset written out as a fixture (mock-fixture.md), e.g. to start from it and edit.
 * Materialises every record: meant for small sizes.
 */
export function generateDemoFixture(options: DemoOptions = {}): Fixture {
  const { dataset } = generateDemoDataset(options);
  const all = <T>(c: Collection<T>) => slice(c, 0, c.length);
  return {
    ...(dataset.jwtSecret === undefined ? {} : { jwtSecret: dataset.jwtSecret }),
    identityProvider: {
      existingEmails: dataset.identityProvider.existingEmails,
      refuse: dataset.identityProvider.refuse,
    },
    organizations: dataset.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      settings: o.settings,
      users: all(o.users),
      teams: all(o.teams),
      scorecards: all(o.scorecards),
      missions: all(o.missions),
      tracks: all(o.tracks),
      sprints: all(o.sprints),
      trackAssignments: all(o.trackAssignments),
      missionAssignments: all(o.missionAssignments),
      realCallSessions: all(
        o.realCallSessions,
      ) as Fixture['organizations'][number]['realCallSessions'],
    })),
  };
}
