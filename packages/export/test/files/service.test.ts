import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MANIFEST_BYTES } from '../../src/changes/bases.js';
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

  const demo = { service: 'http://127.0.0.1:40002', demo: true };
  const unnamed = { service: undefined, demo: false };
  const write = (text: string) => writeFile(join(dir, 'manifest.json'), text);

  it('what is not a manifest names no service: any run, the demo too, is let through', async () => {
    for (const text of ['{"service":', 'null', '"https://eu.example.com"', '42', '[]', '']) {
      await write(text);
      await expect(assertSameService(dir, real, false), text).resolves.toBeUndefined();
      await expect(assertSameService(dir, demo, false), text).resolves.toBeUndefined();
    }
  });

  it('a manifest of an earlier rcs (neither service nor demo) takes a demo run too', async () => {
    await manifest({ resources: ['users'] });
    await expect(assertSameService(dir, demo, false)).resolves.toBeUndefined();
  });

  it('a manifest of exactly the largest size is compared; one byte larger, it names no service', async () => {
    const head = '{"service":"https://eu.example.com","demo":false,"pad":"';
    const sized = (bytes: number) => `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
    await write(sized(MAX_MANIFEST_BYTES));
    await expect(assertSameService(dir, real, false)).rejects.toThrow(
      /holds an export of https:\/\/eu\.example\.com, not an export of https:\/\/api\.example\.com/,
    );
    await write(sized(MAX_MANIFEST_BYTES + 1));
    await expect(assertSameService(dir, real, false)).resolves.toBeUndefined();
  });

  it("a manifest with demo true and no service holds the demo's data", async () => {
    await manifest({ demo: true });
    await expect(assertSameService(dir, demo, false)).resolves.toBeUndefined();
    await expect(assertSameService(dir, real, false)).rejects.toThrow(
      /holds the demo's data \(rcs demo\), not an export of https:\/\/api\.example\.com/,
    );
  });

  it('a manifest with a service and no demo field is compared: not the demo', async () => {
    await manifest({ service: 'https://eu.example.com' });
    await expect(
      assertSameService(dir, { service: 'https://eu.example.com', demo: false }, false),
    ).resolves.toBeUndefined();
    await expect(assertSameService(dir, real, false)).rejects.toBeInstanceOf(ExportUsageError);
    await expect(assertSameService(dir, demo, false)).rejects.toThrow(
      /holds an export of https:\/\/eu\.example\.com, not the demo's data \(rcs demo\)/,
    );
  });

  it("a run whose client names no base URL takes any service's directory, never the demo's", async () => {
    await manifest({ service: 'https://eu.example.com', demo: false });
    await expect(assertSameService(dir, unnamed, false)).resolves.toBeUndefined();
    await manifest({ service: 'http://127.0.0.1:40001', demo: true });
    await expect(assertSameService(dir, unnamed, false)).rejects.toThrow(
      /holds the demo's data \(rcs demo\), not an export of an unnamed service: one directory holds one service's data \(its manifest\.json records which\), so nothing was written; export into another directory with `out`, or pass `force` to replace its files$/,
    );
  });
});
