/**
 * @rcs/mock/node: everything of `@rcs/mock`, plus what needs Node: the real HTTP server over the
 * handlers (`startMockServer`, what `rcs mock` runs) and the fixture-file loader.
 */

export { loadFixtureFile } from './fixture-file.js';
export * from './index.js';
export {
  type AnswerRecord,
  type MockServer,
  type MockServerOptions,
  REQUEST_ID_HEADER,
  startMockServer,
} from './server.js';
