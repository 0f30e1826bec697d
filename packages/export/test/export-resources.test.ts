/** The public API against the mock over real HTTP: what a Node program relies on. */
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createRcsClient, type RcsClient } from '@rcs/client';
import {
  ChangesStateError,
  ExportError,
  type ExportProgressEvent,
  ExportUsageError,
  exportResources,
  exportResourceToStream,
  ResourceExportError,
  recordShapeOf,
  UnsafeFileError,
} from '@rcs/export';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { footerOf } from './support/parquet-reader.js';

let server: MockServer;
let client: RcsClient;
let dir: string;

beforeAll(async () => {
  server = await startMockServer({ port: 0, records: 300 });
  client = createRcsClient({ baseUrl: server.url, apiKey: server.info.apiKey ?? '' });
  dir = await mkdtemp(join(tmpdir(), 'rcs-export-api-'));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('exportResources', () => {
  it("names itself and its version in a Parquet file's footer (created_by), as warehouse readers expect", async () => {
    const out = join(dir, 'parquet');
    await exportResources({ client, out, resources: ['teams'], format: 'parquet' });
    expect((await footerOf(join(out, 'teams.parquet'))).created_by).toBe(
      `rcs version ${pkg.version}`,
    );
  });

  it('exports all nine by default, reports progress, and returns what manifest.json says', async () => {
    const out = join(dir, 'all');
    const events: ExportProgressEvent[] = [];
    const { dir: written, manifest } = await exportResources({
      client,
      out,
      onProgress: (e) => events.push(e),
    });
    expect(written).toBe(out);
    expect(manifest.resources).toHaveLength(9);
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))).toEqual(manifest);
    for (const e of manifest.resources) {
      const lines = (await readFile(join(out, e.file), 'utf8')).split('\n').filter(Boolean);
      expect(lines).toHaveLength(e.count);
      // Each export ends once, with its count, after its pages.
      const own = events.filter((x) => x.resource === e.resource);
      expect(own.at(-1)).toEqual({
        resource: e.resource,
        count: e.count,
        total: e.totalAtEnd,
        status: 'done',
      });
      expect(own.slice(0, -1).every((x) => x.status === 'running')).toBe(true);
    }
    // One export after another: they start in the manifest's order, and two are open at most
    // (the next starts while the last pages of the current one come).
    const started = [...new Set(events.map((e) => e.resource))];
    expect(started).toEqual(manifest.resources.map((e) => e.resource));
    const open = new Set<string>();
    let most = 0;
    for (const e of events) {
      if (e.status === 'running') open.add(e.resource);
      else open.delete(e.resource);
      most = Math.max(most, open.size);
    }
    expect(most).toBeLessThanOrEqual(2);
  });

  it.each([
    [{ format: 'xml' as 'csv' }, /`format` must be jsonl, csv or parquet, got "xml"/],
    [{ resources: ['userz'] }, /unknown export "userz"/],
    [{ rowGroupRows: 10 }, /`rowGroupRows` applies to `format` parquet only/],
    [{ format: 'parquet' as const, rowGroupBytes: 0 }, /`rowGroupBytes` must be an integer/],
    [{ out: '-', resources: ['users'] }, /use exportResourceToStream/],
  ])('rejects %o before it makes the client', async (over, message) => {
    let made = false;
    const run = exportResources({
      client: () => {
        made = true;
        return client;
      },
      out: join(dir, 'bad'),
      ...over,
    });
    await expect(run).rejects.toThrow(ExportUsageError);
    await expect(run).rejects.toThrow(message);
    expect(made).toBe(false);
  });

  it('an aborted run rejects with the reason and replaces nothing', async () => {
    const out = join(dir, 'aborted');
    await exportResources({ client, out, resources: ['users'] });
    const before = await readFile(join(out, 'users.jsonl'), 'utf8');
    const ac = new AbortController();
    const reason = new Error('stop');
    const run = exportResources({
      client,
      out,
      resources: ['users', 'teams'],
      format: 'csv',
      signal: ac.signal,
      onProgress: () => ac.abort(reason),
    });
    await expect(run).rejects.toBe(reason);
    expect(await readFile(join(out, 'users.jsonl'), 'utf8')).toBe(before);
    expect((await readdir(out)).sort()).toEqual(['manifest.json', 'users.jsonl']);
  });
});

describe('one directory, one service', () => {
  it("the manifest names the client's service; a client of another service is refused before any request unless force", async () => {
    const out = join(dir, 'one-service');
    const { manifest } = await exportResources({ client, out, resources: ['teams'] });
    expect(manifest).toMatchObject({ service: server.url, demo: false });
    const before = await readFile(join(out, 'manifest.json'), 'utf8');

    // Another service: the same data behind another base URL path (`/tenant-b`).
    let requests = 0;
    const other = createRcsClient({
      baseUrl: `${server.url}/tenant-b`,
      apiKey: server.info.apiKey ?? '',
      fetch: async (request) => {
        requests++;
        const url = new URL(request.url);
        url.pathname = url.pathname.replace(/^\/tenant-b/, '');
        return fetch(new Request(url, request));
      },
    });
    const refused = exportResources({ client: other, out, resources: ['teams'] });
    await expect(refused).rejects.toThrow(ExportUsageError);
    await expect(refused).rejects.toThrow(
      `holds an export of ${server.url}, not an export of ${server.url}/tenant-b`,
    );
    expect(requests).toBe(0);
    expect(await readFile(join(out, 'manifest.json'), 'utf8')).toBe(before);

    const forced = await exportResources({ client: other, out, resources: ['teams'], force: true });
    expect(forced.manifest.service).toBe(`${server.url}/tenant-b`);
    expect(requests).toBeGreaterThan(0);
  });
});

describe('the errors as the README lists them, in the words of this library', () => {
  it('a run that names (`ack`) a snapshot no longer there rejects with a ChangesStateError naming its export, not one wrapped in a ResourceExportError', async () => {
    const out = join(dir, 'pruned');
    const first = await exportResources({ client, out, resources: ['teams'], changes: true });
    const runId = first.manifest.changes?.runId ?? '';
    await rm(join(out, `.teams.changes-state.${runId}`));
    const run = exportResources({ client, out, resources: ['teams'], changes: true, ack: runId });
    await expect(run).rejects.toBeInstanceOf(ChangesStateError);
    await expect(run).rejects.not.toBeInstanceOf(ResourceExportError);
    await expect(run).rejects.toMatchObject({ resource: 'teams' });
    await expect(run).rejects.toThrow(/`full`/);
  });

  it('a link planted in place of a file of its own is an UnsafeFileError, an ExportError like every error it throws on purpose', async () => {
    const out = join(dir, 'planted');
    await exportResources({ client, out, resources: ['teams'] });
    const target = join(dir, 'not-yours');
    await writeFile(target, 'keep');
    await symlink(target, join(out, '.rcs-export.lock'));
    const run = exportResources({ client, out, resources: ['teams'] });
    await expect(run).rejects.toBeInstanceOf(UnsafeFileError);
    await expect(run).rejects.toBeInstanceOf(ExportError);
    expect(await readFile(target, 'utf8')).toBe('keep');
    expect(() => recordShapeOf('userz' as 'users')).toThrow(ExportUsageError);
  });

  it("another service's directory: the refusal names the options `out` and `force`, no command-line flag", async () => {
    const out = join(dir, 'words');
    await exportResources({ client, out, resources: ['teams'] });
    const other = createRcsClient({ baseUrl: `${server.url}/elsewhere`, apiKey: 'unused' });
    const refused = exportResources({ client: other, out, resources: ['teams'] });
    await expect(refused).rejects.toThrow(/^`out` .* holds .* pass `force` to replace its files$/);
    await expect(refused).rejects.not.toThrow(/--/);
    const forcedStream = exportResourceToStream({
      client,
      resource: 'teams',
      stream: new PassThrough(),
      force: true,
    } as Parameters<typeof exportResourceToStream>[0]);
    await expect(forcedStream).rejects.toThrow('`force` applies to `out` DIR');
  });
});

describe('exportResourceToStream', () => {
  it('streams one export as JSON Lines and returns its counts', async () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const result = await exportResourceToStream({ client, resource: 'teams', stream });
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(result.count);
    expect(result.count).toBe(result.total);
    expect(JSON.parse(lines[0]!)).toHaveProperty('id');
  });
});
