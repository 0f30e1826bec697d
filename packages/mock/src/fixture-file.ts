import { readFile } from 'node:fs/promises';
import { type Fixture, FixtureError, loadFixture } from './fixture.js';

/**
 * Reads and validates a fixture file (mock-fixture.md). Node only: `@rcs/mock/node`. `read` reads
 * the text (`rcs mock` reads regular files only, through no link another user planted).
 */
export async function loadFixtureFile(
  path: string,
  read = (file: string) => readFile(file, 'utf8'),
): Promise<Fixture> {
  let text: string;
  try {
    text = await read(path);
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
