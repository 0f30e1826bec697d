/**
 * `rcs mock --day N` as a nightly job rehearses on it: night 0 then night 1 on the same port,
 * `rcs export all --changes` after each, and the change files hold exactly what differs between
 * the two nights' data (computed here from the same data, in-process).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
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
        env: mock.env,
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

const exportAll = async (url: string, key: string, out: string) => {
  const r = await runCli(['export', 'all', '--out', out], {
    cwd,
    env: { RCS_BASE_URL: url, RCS_API_KEY: key },
  });
  expect(r.code, r.stderr).toBe(0);
  const files = EXPORT_TABLE.map((e) => readJsonl(join(out, `${e.resource}.jsonl`)));
  return Promise.all(files);
};

it('--write-fixture writes what the mock serves, never over a file, and --fixture serves it back unchanged', async () => {
  const file = join(cwd, 'night-2.json');
  const args = ['mock', '--write-fixture', file, '--records', '300', '--day', '2'];
  const written = await runCli(args, { cwd });
  expect(written.code, written.stderr).toBe(0);
  const text = await readFile(file, 'utf8');

  const again = await runCli(args, { cwd });
  expect(again.code).toBe(2);
  expect(again.stderr).toMatch(/night-2\.json: the file exists and is never replaced/);
  expect(await readFile(file, 'utf8')).toBe(text);

  const generated = await startMock(['--records', '300', '--day', '2']);
  const served = await startMock(['--fixture', file]);
  try {
    const key = JSON.parse(text).organizations[0].apiKeys[0] as string;
    expect(key).toBe(generated.apiKey);
    const a = await exportAll(generated.url, key, join(cwd, 'from-generated'));
    const b = await exportAll(served.url, key, join(cwd, 'from-fixture'));
    expect(a.reduce((n, f) => n + f.length, 0)).toBeGreaterThan(250);
    expect(b).toEqual(a);
  } finally {
    await generated.stop();
    await served.stop();
  }
});

it('a fixture missing keys: one line naming them, and where the format is described', async () => {
  const file = join(cwd, 'empty.json');
  await writeFile(file, '{}');
  const r = await runCli(['mock', '--port', '0', '--fixture', file], { cwd });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/\(root\): missing organizations/);
  expect(r.stderr).toMatch(/FIXTURE\.md of @rcs\/mock.*rcs mock --write-fixture FILE/);
});
