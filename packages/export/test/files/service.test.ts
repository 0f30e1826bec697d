import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExportUsageError } from '../../src/errors.js';
import { assertSameService, serviceOf } from '../../src/files/service.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-service-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const manifest = (fields: Record<string, unknown>) =>
  writeFile(join(dir, 'manifest.json'), JSON.stringify({ manifestVersion: 1, ...fields }));

describe('serviceOf: the service a manifest records', () => {
  it.each([
    ['https://API.example.com:443/', 'https://api.example.com'],
    ['https://api.example.com/base/', 'https://api.example.com/base'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    // Never credentials or a query, whatever the URL held.
    ['https://user:secret@api.example.com/v?key=secret#x', 'https://api.example.com/v'],
  ])('%s → %s', (url, service) => {
    expect(serviceOf(url)).toBe(service);
  });
});

describe('assertSameService: one directory, one service', () => {
  const real = { service: 'https://api.example.com', demo: false };

  it('a directory without a manifest, or with one of an earlier rcs (no service), takes any run', async () => {
    await expect(assertSameService(dir, real, false)).resolves.toBeUndefined();
    await manifest({ resources: [] });
    await expect(assertSameService(dir, real, false)).resolves.toBeUndefined();
  });

  it("a manifest.json that is a link is not read through: its target's service is not this directory's", async () => {
    const elsewhere = join(dir, 'elsewhere.json');
    await writeFile(
      elsewhere,
      JSON.stringify({ manifestVersion: 1, service: 'https://other.example' }),
    );
    await symlink(elsewhere, join(dir, 'manifest.json'));
    await expect(assertSameService(dir, real, false)).resolves.toBeUndefined();
  });

  it('the same service again, and demo after demo on any port, are the same', async () => {
    await manifest({ service: 'https://api.example.com', demo: false });
    await expect(assertSameService(dir, real, false)).resolves.toBeUndefined();
    await manifest({ service: 'http://127.0.0.1:40001', demo: true });
    const demo = { service: 'http://127.0.0.1:40002', demo: true };
    await expect(assertSameService(dir, demo, false)).resolves.toBeUndefined();
  });

  it('another service is refused with a usage error naming both; force lets it through', async () => {
    await manifest({ service: 'https://eu.example.com', demo: false });
    const refused = assertSameService(dir, real, false);
    await expect(refused).rejects.toBeInstanceOf(ExportUsageError);
    await expect(refused).rejects.toThrow(
      /holds an export of https:\/\/eu\.example\.com, not an export of https:\/\/api\.example\.com: .*pass `force`/,
    );
    await expect(assertSameService(dir, real, true)).resolves.toBeUndefined();
  });

  it("the demo's data and a real service's never share a directory, either way round", async () => {
    await manifest({ service: 'http://127.0.0.1:40001', demo: true });
    await expect(assertSameService(dir, real, false)).rejects.toThrow(
      /holds the demo's data \(rcs demo\), not an export of https:\/\/api\.example\.com/,
    );
    await manifest({ service: 'https://api.example.com', demo: false });
    const demo = { service: 'http://127.0.0.1:40002', demo: true };
    await expect(assertSameService(dir, demo, false)).rejects.toThrow(
      /the demo writes into a directory of its own/,
    );
  });
});
