/**
 * `rcs mock --day N` as a nightly job rehearses on it: night 0 then night 1 on the same port,
 * `rcs export all --changes` after each, and the change files hold exactly what differs between
 * the two nights' data (computed here from the same data, in-process).
 */
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { EXPORT_TABLE } from '@rcs/client';
import { generateDemoFixture } from '@rcs/mock';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt, runCli, startMock, tempDir } from './helpers.js';

type Rec = { id: string } & Record<string, unknown>;
const RECORDS = 1500;

const readJsonl = async (path: string): Promise<Rec[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);

/** A port free now, so both nights can be served on it, one after the other. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let cwd: string;
beforeAll(() => {
  assertBuilt();
  cwd = tempDir('rcs-mock-days-');
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

it('--changes against --day 0 then --day 1 on one port reports exactly the difference of the two nights', async () => {
  const port = String(await freePort());
  const out = join(cwd, 'export');
  const night = async (day: number) => {
    const mock = await startMock([
      '--port',
      port,
      '--records',
      String(RECORDS),
      '--day',
      String(day),
    ]);
    try {
      const r = await runCli(['export', 'all', '--format', 'jsonl', '--changes', '--out', out], {
        cwd,
        env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.apiKey },
      });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await mock.stop();
    }
  };
  await night(0);
  await night(1);

  const [before, after] = [0, 1].map(
    (day) => generateDemoFixture({ records: RECORDS, day }).organizations[0],
  );
  let changes = 0;
  for (const { resource, name } of EXPORT_TABLE) {
    const a = new Map(((before?.[name] ?? []) as Rec[]).map((r) => [r.id, r]));
    const b = new Map(((after?.[name] ?? []) as Rec[]).map((r) => [r.id, r]));
    const expected = [
      ...[...b.keys()].filter((id) => !a.has(id)).map((id) => `insert ${id}`),
      ...[...a.keys()].filter((id) => !b.has(id)).map((id) => `delete ${id}`),
      ...[...b.keys()]
        .filter((id) => a.has(id) && JSON.stringify(a.get(id)) !== JSON.stringify(b.get(id)))
        .map((id) => `update ${id}`),
    ];
    const lines = await readJsonl(join(out, `${resource}.changes.jsonl`));
    expect(lines.map((l) => `${l.op} ${l.id}`).sort(), resource).toEqual(expected.sort());
    // Inserted and updated records are the night's records as exported.
    const exported = new Map(
      (await readJsonl(join(out, `${resource}.jsonl`))).map((r) => [r.id, r]),
    );
    for (const l of lines) if (l.op !== 'delete') expect(l.record).toEqual(exported.get(l.id));
    expect(expected.length, resource).toBeGreaterThanOrEqual(3);
    changes += expected.length;
  }
  expect(changes).toBeLessThan(RECORDS * 0.2);
});
