import { readFile } from 'node:fs/promises';
import { type Fixture, FixtureError, loadFixture } from './fixture.js';

/** Reads and validates a fixture file (mock-fixture.md). Node only: `@rcs/mock/node`. */
export async function loadFixtureFile(path: string): Promise<Fixture> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new FixtureError([`${path}: cannot read fixture file (${(err as Error).message})`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new FixtureError([`${path}: not valid JSON (${(err as Error).message})`]);
  }
  return loadFixture(json);
}
