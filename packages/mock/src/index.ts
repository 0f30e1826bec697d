/**
 * @rcs/mock: the Real-Call Scoring and Coaching Data API as an executable spec. MSW handlers
 * over an org-scoped in-memory store (`createMockApi`), fixture validation (`loadFixture`) and
 * the demo dataset. No `node:` import: the same handlers run in a browser's MSW worker
 * (`setupWorker` from `msw/browser`). The real HTTP server and the fixture-file loader are in
 * the node-only entry, `@rcs/mock/node`.
 */
export {
  createMockApi,
  type MockApi,
  type MockApiOptions,
  type MockState,
  type OrgView,
} from './api.js';
export { MAX_BODY_BYTES } from './body.js';
export type { Collection } from './collection.js';
export type { Dataset, OrgData } from './dataset.js';
export {
  DEFAULT_DEMO_RECORDS,
  DEFAULT_DEMO_SEED,
  type DemoDataset,
  type DemoOptions,
  generateDemoDataset,
  generateDemoFixture,
  MIN_DEMO_RECORDS,
} from './demo-data.js';
export type { FaultOptions } from './faults.js';
export { type Fixture, FixtureError, loadFixture } from './fixture.js';
export type { Clock } from './handlers/context.js';
export type { ExportRoute } from './handlers/exports.js';
export type { MockInfo } from './info.js';
export type { CreatedUser } from './store.js';
