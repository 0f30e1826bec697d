import { type Collection, slice } from './collection.js';
import type { Dataset } from './dataset.js';
import { demoOrg, type OrgPlan } from './demo/org.js';
import type { Fixture } from './fixture.js';
import { infoOf, type MockInfo } from './info.js';
import { hash32 } from './random.js';

/**
 * The demo dataset (no fixture): deterministic from `seed`, sized by `records` (the total of
 * export records over all organizations). Record `i` of every list is computed on demand from
 * (seed, i), the same whatever the size, and ids and emails map back to their index, so a
 * million records start in milliseconds and cost memory only while a page is being answered.
 */
export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_RECORDS = 2000;
/** Two organizations, each with the minimum counts of its lists (a few scorecards, missions, …). */
export const MIN_DEMO_RECORDS = 60;
const NEIGHBOUR_RECORDS = MIN_DEMO_RECORDS / 2;

export interface DemoOptions {
  seed?: number;
  records?: number;
  /**
   * "Night N": 0 (default) is the data of `records`; each later night is the night before with a
   * few percent of every list inserted, updated and deleted, the same for the same seed.
   */
  day?: number;
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
  const day = options.day ?? 0;
  if (!Number.isSafeInteger(records) || records < MIN_DEMO_RECORDS) {
    throw new RangeError(`records must be an integer >= ${MIN_DEMO_RECORDS} (got ${records})`);
  }
  if (!Number.isSafeInteger(day) || day < 0) {
    throw new RangeError(`day must be an integer >= 0 (got ${day})`);
  }
  const plans: OrgPlan[] = [
    {
      index: 0,
      name: 'Demo Sales',
      domain: 'demo-sales.example',
      autoCreateUsers: true,
      records: records - NEIGHBOUR_RECORDS,
    },
    {
      index: 1,
      name: 'Neighbour Org',
      domain: 'neighbour.example',
      autoCreateUsers: false,
      records: NEIGHBOUR_RECORDS,
    },
  ];
  const organizations = plans.map((p) => demoOrg(seed, p, day));
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

const all = <T>(c: Collection<T>) => slice(c, 0, c.length);

/**
 * The demo dataset written out as a fixture (mock-fixture.md), e.g. to start from it and edit.
 * Materialises every record: meant for small sizes.
 */
export function generateDemoFixture(options: DemoOptions = {}): Fixture {
  const { dataset } = generateDemoDataset(options);
  return {
    jwtSecret: dataset.jwtSecret,
    identityProvider: dataset.identityProvider,
    organizations: dataset.organizations.map((o) => ({
      id: o.id,
      name: o.name,
      apiKeys: o.apiKeys,
      settings: o.settings,
      // The exports' order, as written. OrgData's sessions may be in any state, the demo's are DONE.
      realCallSessions: all(o.realCallSessions) as Fixture['organizations'][0]['realCallSessions'],
      trackAssignments: all(o.trackAssignments),
      missionAssignments: all(o.missionAssignments),
      sprints: all(o.sprints),
      users: all(o.users),
      tracks: all(o.tracks),
      scorecards: all(o.scorecards),
      missions: all(o.missions),
      teams: all(o.teams),
    })),
  };
}
