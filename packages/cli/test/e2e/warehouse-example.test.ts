/**
 * examples/warehouse as CI runs it: the nightly job exports Parquet with --changes
 * from the mock over HTTP and merges the changes into a DuckDB database; after every night the
 * warehouse equals that night's snapshot, through inserts, updates, deletes, an unchanged night
 * and a failed merge.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_API_KEY, hostileFixture } from '../support/hostile-fixture.js';
import { difference as differenceOf, equalEverywhere } from '../support/warehouse-diff.js';
import { assertBuilt, forcedCli, REPO, runCommand, tempDir } from './helpers.js';

const SCRIPT = join(REPO, 'examples/warehouse/nightly-load.mjs');

let forced = '';

function nightly(mock: MockServer, cwd: string, ...extra: string[]) {
  forced ||= forcedCli();
  return runCommand(process.execPath, [SCRIPT, 'export', 'warehouse.duckdb', ...extra], {
    cwd,
    env: {
      RCS_BASE_URL: mock.url,
      RCS_API_KEY: HOSTILE_API_KEY,
      RCS_BIN: `${process.execPath} ${forced}`,
    },
  });
}

const difference = (cwd: string) =>
  differenceOf(join(cwd, 'warehouse.duckdb'), join(cwd, 'export'));

describe('examples/warehouse: nightly Parquet + --changes merged into DuckDB', () => {
  let cwd: string;
  let before: MockServer;
  let after: MockServer;
  beforeAll(async () => {
    assertBuilt();
    cwd = tempDir('rcs-warehouse-example-');
    before = await startMockServer({ port: 0, fixture: hostileFixture() });
    const changed = hostileFixture();
    const org = changed.organizations[0]!;
    org.teams.push({ ...org.teams[0]!, id: 'ffffffff-3c1a-4f59-9d5e-2a7b6c8d9e01', name: 'New' });
    org.users[1]!.lastName = 'Changed';
    org.missionAssignments.splice(0, 3);
    org.realCallSessions.splice(1, 1);
    after = await startMockServer({ port: 0, fixture: changed });
  });
  afterAll(async () => {
    await before.close();
    await after.close();
    await rm(cwd, { recursive: true, force: true });
  });

  it('night 1: the empty warehouse gets every record', async () => {
    const r = await nightly(before, cwd);
    expect(r.code, r.stderr).toBe(0);
    // The first night reloads every table from its snapshot (no run to merge from).
    expect(r.stdout).toMatch(/merged into warehouse\.duckdb: real-call-sessions: reloaded 3/);
    const diff = await difference(cwd);
    equalEverywhere(diff);
    expect(diff['teams rows']![0]).toBe(hostileFixture().organizations[0]!.teams.length);
  });

  it('night 2: inserts, updates and deletes merged; the items follow their sessions', async () => {
    const r = await nightly(after, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/teams: \+1 ~0 -0/);
    expect(r.stdout).toMatch(/users: \+0 ~1 -0/);
    expect(r.stdout).toMatch(/mission-assignments: \+0 ~0 -3/);
    expect(r.stdout).toMatch(/real-call-sessions: \+0 ~0 -1/);
    const diff = await difference(cwd);
    equalEverywhere(diff);
    expect(diff['real-call-sessions rows']![0]).toBe(2);
  });

  it('night 3, unchanged: nothing to merge, still equal', async () => {
    const r = await nightly(after, cwd);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/teams: \+0 ~0 -0/);
    equalEverywhere(await difference(cwd));
  });

  it('--print-sql prints the MERGE for a warehouse instead of running it', async () => {
    const r = await nightly(after, cwd, '--print-sql');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/CREATE TABLE IF NOT EXISTS "users" AS SELECT \* FROM read_parquet/);
  });

  it('a failed merge rolls back and the next night reloads from the snapshot', async () => {
    // Break the warehouse: a column the merge needs is gone.
    const db = await DuckDBInstance.create(join(cwd, 'warehouse.duckdb'));
    const c = await db.connect();
    await c.run('ALTER TABLE "users" DROP COLUMN "lastName"');
    c.closeSync();
    db.closeSync();
    const changed = hostileFixture();
    changed.organizations[0]!.users[4]!.firstName = 'Again';
    const third = await startMockServer({ port: 0, fixture: changed });
    try {
      const failed = await nightly(third, cwd);
      expect(failed.code).toBe(1);
      // The export's one finished line, then the merge's one line.
      const lines = failed.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^rcs export: \d+ exports, [\d,]+ records/);
      expect(failed.stderr).toMatch(
        /the merge failed and was rolled back .*the next run reloads every table/,
      );
      // The reload: tables replaced from the snapshot, equal again.
      const reloaded = await nightly(third, cwd);
      expect(reloaded.code, reloaded.stderr).toBe(0);
      expect(reloaded.stdout).toMatch(/users: reloaded/);
      equalEverywhere(await difference(cwd));
      // And merging resumes the night after.
      const next = await nightly(third, cwd);
      expect(next.stdout).toMatch(/users: \+0 ~0 -0/);
    } finally {
      await third.close();
    }
  }, 120_000);
});
