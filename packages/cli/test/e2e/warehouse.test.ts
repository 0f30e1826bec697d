/**
 * D27 as users run it: the built CLI spawned against the mock over HTTP, Parquet read
 * back by an independent reader (DuckDB), `--changes` across fixtures that differ by known
 * inserts, updates and deletes, and an interrupted run that must leave the last good state.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXPORT_TABLE } from '@rcs/client';
import { recordShapeOf, SESSION_ITEM_SHAPE } from '@rcs/export';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readJsonl, sha } from '../../../../test/support/files.js';
import {
  actualRow,
  expectedRow,
  readParquet,
} from '../../../export/test/support/parquet-reader.js';
import { HOSTILE_API_KEY, HOSTILE_CELLS, hostileFixture } from '../support/hostile-fixture.js';
import { assertBuilt, runCli, startCli, tempDir } from './helpers.js';

type Rec = { id: string } & Record<string, unknown>;

function exportWith(mock: MockServer, apiKey: string, cwd: string, args: string[]) {
  return runCli(['export', ...args], {
    cwd,
    env: { RCS_BASE_URL: mock.url, RCS_API_KEY: apiKey },
  });
}

let cwd: string;
beforeAll(() => {
  assertBuilt();
  cwd = tempDir('rcs-warehouse-');
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('rcs export --format parquet (D27)', () => {
  let hostile: MockServer;
  let demo: MockServer;
  beforeAll(async () => {
    hostile = await startMockServer({ port: 0, fixture: hostileFixture() });
    demo = await startMockServer({ port: 0, records: 1500, seed: 7 });
  });
  afterAll(async () => {
    await hostile.close();
    await demo.close();
  });

  for (const which of ['hostile', 'demo'] as const) {
    it(`${which} data: all nine read back by DuckDB equal the JSONL export, record for record`, async () => {
      const mock = which === 'hostile' ? hostile : demo;
      const key = which === 'hostile' ? HOSTILE_API_KEY : (mock.info.apiKey ?? '');
      const pq = join(cwd, `${which}-parquet`);
      const jl = join(cwd, `${which}-jsonl`);
      const a = await exportWith(mock, key, cwd, ['all', '--format', 'parquet', '--out', pq]);
      expect(a.code, a.stderr).toBe(0);
      const b = await exportWith(mock, key, cwd, ['all', '--out', jl]);
      expect(b.code, b.stderr).toBe(0);

      const manifest = JSON.parse(await readFile(join(pq, 'manifest.json'), 'utf8'));
      expect(manifest.format).toBe('parquet');
      for (const { resource } of EXPORT_TABLE) {
        const records = await readJsonl(join(jl, `${resource}.jsonl`));
        const table = await readParquet(join(pq, `${resource}.parquet`));
        const shape = recordShapeOf(resource);
        expect(table.rows.map(actualRow), resource).toEqual(
          records.map((r) => expectedRow(r, shape)),
        );
        const entry = manifest.resources.find((e: { resource: string }) => e.resource === resource);
        expect(entry.file).toBe(`${resource}.parquet`);
        expect(entry.count).toBe(records.length);
        expect(entry.sha256).toBe(await sha(join(pq, entry.file)));
        expect(entry.bytes).toBe((await stat(join(pq, entry.file))).size);
        // The manifest tells the file's row groups and columns as the file has them.
        expect(entry.parquet, resource).toEqual({
          compression: 'snappy',
          rowGroups: { count: table.groupRows.length, rows: table.groupRows },
          schema: expect.any(Array),
        });
        expect(entry.parquet.schema.map((c: { name: string }) => c.name)).toEqual(
          shape.fields.map((f) => f.name),
        );
        // Fewer rows than one group holds: one group (none for an empty export).
        expect(table.groupRows).toEqual(records.length > 0 ? [records.length] : []);
      }
      // The child table: one row per analysis item, keyed by session id and position.
      const sessions = await readJsonl(join(jl, 'real-call-sessions.jsonl'));
      const items = await readParquet(join(pq, 'real-call-session-items.parquet'));
      const expectedItems = sessions.flatMap((s) =>
        ((s.analysis as { items: Rec[] }).items ?? []).map((item, itemIndex) =>
          expectedRow({ ...item, sessionId: s.id, itemIndex } as Rec, SESSION_ITEM_SHAPE),
        ),
      );
      expect(expectedItems.length).toBeGreaterThan(0);
      expect(items.rows.map(actualRow)).toEqual(expectedItems);
      const sessionsEntry = manifest.resources.find(
        (e: { resource: string }) => e.resource === 'real-call-sessions',
      );
      expect(sessionsEntry.items).toMatchObject({
        file: 'real-call-session-items.parquet',
        count: expectedItems.length,
        parquet: { compression: 'snappy', rowGroups: { count: 1, rows: [expectedItems.length] } },
      });
      expect(sessionsEntry.parquet.schema).toContainEqual({
        name: 'createdAt',
        type: 'TIMESTAMP(MILLIS, UTC)',
        nullable: false,
      });
    });
  }

  it('column types are those D27 names, nullable exactly where openapi.yaml says', async () => {
    const pq = join(cwd, 'hostile-parquet');
    const sessions = await readParquet(join(pq, 'real-call-sessions.parquet'));
    expect(sessions.types).toEqual([
      'id: VARCHAR',
      'createdAt: TIMESTAMP WITH TIME ZONE',
      'lastUpdatedAt: TIMESTAMP WITH TIME ZONE',
      'learnerUserId: VARCHAR',
      'transcript: VARCHAR',
      'language: VARCHAR',
      'completed: BOOLEAN',
      'analysis: STRUCT(score DOUBLE, items STRUCT("name" VARCHAR, solved VARCHAR, explanation VARCHAR, suggestion VARCHAR, itemScore DOUBLE)[])',
      'missionId: VARCHAR',
      'participantUserIds: VARCHAR[]',
    ]);
    // Required and not nullable: REQUIRED. `type: [string, 'null']` or not required: OPTIONAL.
    expect(sessions.repetitions).toMatchObject({
      id: 'REQUIRED',
      createdAt: 'REQUIRED',
      transcript: 'OPTIONAL',
      analysis: 'REQUIRED',
      score: 'REQUIRED',
      missionId: 'OPTIONAL',
      participantUserIds: 'OPTIONAL',
      solved: 'REQUIRED',
      suggestion: 'OPTIONAL',
    });
    const assignments = await readParquet(join(pq, 'track-assignments.parquet'));
    expect(assignments.types).toContain('dueDate: TIMESTAMP WITH TIME ZONE');
    expect(assignments.types).toContain('completedMissionIds: VARCHAR[]');
    expect(assignments.repetitions).toMatchObject({ dueDate: 'OPTIONAL', startDate: 'REQUIRED' });
    const tracks = await readParquet(join(pq, 'tracks.parquet'));
    expect(tracks.types).toContain('archived: BOOLEAN');
    const items = await readParquet(join(pq, 'real-call-session-items.parquet'));
    expect(items.types).toEqual([
      'sessionId: VARCHAR',
      'itemIndex: BIGINT',
      'name: VARCHAR',
      'solved: VARCHAR',
      'explanation: VARCHAR',
      'suggestion: VARCHAR',
      'itemScore: DOUBLE',
    ]);
  });

  it('hostile strings, non-ASCII and nulls come back intact', async () => {
    const teams = await readParquet(join(cwd, 'hostile-parquet', 'teams.parquet'));
    const names = new Set(teams.rows.map((r) => r.name));
    for (const cell of HOSTILE_CELLS) expect(names).toContain(cell);
    const users = await readParquet(join(cwd, 'hostile-parquet', 'users.parquet'));
    expect(users.rows.filter((r) => r.lastName === null).length).toBeGreaterThan(0);
  });

  it('--out - streams one export as a Parquet file', async () => {
    const r = await runCli(['export', 'teams', '--format', 'parquet', '--out', '-'], {
      cwd,
      env: { RCS_BASE_URL: hostile.url, RCS_API_KEY: HOSTILE_API_KEY },
    });
    expect(r.code, r.stderr).toBe(0);
    // runCli decodes stdout as UTF-8; the magic numbers at both ends survive that.
    expect(r.stdout.startsWith('PAR1')).toBe(true);
    expect(r.stdout.endsWith('PAR1')).toBe(true);
  });
});

/** The hostile fixture, changed by known inserts, updates and deletes. */
function changedFixture() {
  const fixture = hostileFixture();
  const org = fixture.organizations[0]!;
  const inserted = [
    { ...org.teams[0]!, id: 'ffffffff-3c1a-4f59-9d5e-2a7b6c8d9e01', name: 'New team' },
    { ...org.teams[0]!, id: '00000000-3c1a-4f59-9d5e-2a7b6c8d9e01', name: 'Also new' },
  ];
  org.teams.push(...inserted);
  org.users[2]!.firstName = 'Renamed';
  org.tracks[1]!.archived = !org.tracks[1]!.archived;
  const deleted = org.missionAssignments.splice(4, 2);
  return {
    fixture,
    expected: {
      teams: { inserts: inserted.map((t) => t.id), updates: [], deletes: [] },
      users: { inserts: [], updates: [org.users[2]!.id], deletes: [] },
      tracks: { inserts: [], updates: [org.tracks[1]!.id], deletes: [] },
      'mission-assignments': { inserts: [], updates: [], deletes: deleted.map((d) => d.id) },
    } as Record<string, { inserts: string[]; updates: string[]; deletes: string[] }>,
  };
}

describe('rcs export --changes (D27)', () => {
  const out = () => join(cwd, 'changes');
  let before: MockServer;
  let after: MockServer;
  const changed = changedFixture();
  beforeAll(async () => {
    before = await startMockServer({ port: 0, fixture: hostileFixture() });
    after = await startMockServer({ port: 0, fixture: changed.fixture });
  });
  afterAll(async () => {
    await before.close();
    await after.close();
  });

  it('first run: every record is an insert, in id order', async () => {
    const r = await exportWith(before, HOSTILE_API_KEY, cwd, [
      'all',
      '--format',
      'parquet',
      '--changes',
      '--out',
      out(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out(), 'manifest.json'), 'utf8'));
    expect(manifest.options.changes).toBe(true);
    for (const { resource } of EXPORT_TABLE) {
      const lines = await readJsonl(join(out(), `${resource}.changes.jsonl`));
      const table = await readParquet(join(out(), `${resource}.parquet`));
      expect(lines.length, resource).toBe(table.rows.length);
      expect(lines.every((l) => l.op === 'insert')).toBe(true);
      const ids = lines.map((l) => l.id);
      expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const entry = manifest.resources.find((e: { resource: string }) => e.resource === resource);
      expect(entry.changes).toMatchObject({
        file: `${resource}.changes.jsonl`,
        inserts: lines.length,
        updates: 0,
        deletes: 0,
      });
    }
  });

  it('an interrupted run leaves the previous state and change files in place', async () => {
    const slow = await startMockServer({
      port: 0,
      fixture: changed.fixture,
      faults: { latencyMs: 5000 },
    });
    try {
      const names = (await readdir(out())).sort();
      const sums = await Promise.all(names.map((n) => sha(join(out(), n))));
      // Each mock stands for the one service at another moment, on a port of its own: --force
      // lets its URL into the directory (one directory, one service; EXPORT.md).
      const args = ['export', 'all', '--format', 'csv', '--changes', '--out', out(), '--force'];
      const run = startCli(args, {
        cwd,
        env: { RCS_BASE_URL: slow.url, RCS_API_KEY: HOSTILE_API_KEY },
      });
      // Mid-run, however loaded the machine: the run holds the directory's lock and waits 5 s
      // for its first page.
      const lock = join(out(), '.rcs-export.lock'); // EXPORT.md "Locks"
      await vi.waitFor(() => expect(existsSync(lock)).toBe(true), {
        timeout: 30_000,
        interval: 50,
      });
      run.child.kill('SIGTERM');
      const r = await run.done;
      expect(r.code).toBe(143);
      expect((await readdir(out())).sort()).toEqual(names);
      expect(await Promise.all(names.map((n) => sha(join(out(), n))))).toEqual(sums);
    } finally {
      await slow.close();
    }
  });

  it('second run: exactly the known inserts, updates and deletes, with the records', async () => {
    // The service later, on another port: --force, as above.
    const r = await exportWith(after, HOSTILE_API_KEY, cwd, [
      'all',
      '--format',
      'jsonl',
      '--changes',
      '--out',
      out(),
      '--force',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out(), 'manifest.json'), 'utf8'));
    for (const { resource } of EXPORT_TABLE) {
      const lines = await readJsonl(join(out(), `${resource}.changes.jsonl`));
      const want = changed.expected[resource] ?? { inserts: [], updates: [], deletes: [] };
      const ids = (op: string) => lines.filter((l) => l.op === op).map((l) => l.id);
      expect(ids('insert').sort(), `${resource} inserts`).toEqual([...want.inserts].sort());
      expect(ids('update'), `${resource} updates`).toEqual(want.updates);
      expect(ids('delete').sort(), `${resource} deletes`).toEqual([...want.deletes].sort());
      const all = lines.map((l) => l.id);
      expect(all).toEqual([...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      // Inserts and updates carry the record as this run exported it; deletes carry none.
      const exported = new Map(
        (await readJsonl(join(out(), `${resource}.jsonl`))).map((rec) => [rec.id, rec]),
      );
      for (const line of lines) {
        if (line.op === 'delete') expect(line).toEqual({ op: 'delete', id: line.id });
        else expect(line.record).toEqual(exported.get(line.id));
      }
      const entry = manifest.resources.find((e: { resource: string }) => e.resource === resource);
      expect(entry.changes).toMatchObject({
        inserts: want.inserts.length,
        updates: want.updates.length,
        deletes: want.deletes.length,
      });
    }
    const users = await readJsonl(join(out(), 'users.changes.jsonl'));
    expect((users[0]!.record as Rec).firstName).toBe('Renamed');
  });

  it('an unchanged third run writes empty change files', async () => {
    const r = await exportWith(after, HOSTILE_API_KEY, cwd, [
      'all',
      '--format',
      'csv',
      '--changes',
      '--out',
      out(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const { resource } of EXPORT_TABLE) {
      expect((await stat(join(out(), `${resource}.changes.jsonl`))).size, resource).toBe(0);
    }
  });

  it('a damaged state is refused with the file named, and nothing is replaced', async () => {
    const dir = join(cwd, 'damaged');
    const first = await exportWith(after, HOSTILE_API_KEY, cwd, [
      'teams',
      '--changes',
      '--out',
      dir,
    ]);
    expect(first.code, first.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    const state = join(dir, manifest.resources[0].changes.state);
    const { writeFile } = await import('node:fs/promises');
    const text = await readFile(state, 'utf8');
    const lines = text.split('\n');
    [lines[1], lines[2]] = [lines[2]!, lines[1]!];
    await writeFile(state, lines.join('\n'));
    const before = await sha(join(dir, 'teams.jsonl'));
    const r = await exportWith(after, HOSTILE_API_KEY, cwd, ['teams', '--changes', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /\.teams\.changes-state\.\S+ is damaged \(line 3: ids out of order\); run with --full to start over/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await sha(join(dir, 'teams.jsonl'))).toBe(before);
  });
});
