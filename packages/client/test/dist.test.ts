import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * The published builds, not the sources: the ESM and CommonJS bundles must both load their
 * dependencies (openapi-fetch's CJS default export and ESM-only p-limit need interop, see
 * src/interop.ts). Runs after `npm run build` (part of `npm test`); skipped without a build.
 */
const dist = new URL('../dist/', import.meta.url);
const built = existsSync(new URL('index.cjs', dist)) && existsSync(new URL('index.js', dist));

type ClientModule = typeof import('@rcs/client');

async function exercise(mod: ClientModule) {
  const fetch = async (input: Request | string | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const page = Number(url.searchParams.get('page'));
    return Response.json({
      data: [{ id: `r${page}` }],
      meta: { total: 3, page, limit: 1, hasNext: page < 3 },
    });
  };
  const rcs = mod.createRcsClient({ baseUrl: 'https://rcs.test', apiKey: 'k-0123456789', fetch });
  const records = await rcs.exports.users.all({ limit: 1, concurrency: 2 }).toArray();
  return records.map((r) => r.id);
}

describe.skipIf(!built)('built bundles (dist/)', () => {
  it('the CommonJS build works through require()', async () => {
    const require = createRequire(import.meta.url);
    const mod = require(new URL('index.cjs', dist).pathname) as ClientModule;
    expect(await exercise(mod)).toEqual(['r1', 'r2', 'r3']);
  });

  it('the ESM build works through import', async () => {
    const mod = (await import(new URL('index.js', dist).href)) as ClientModule;
    expect(await exercise(mod)).toEqual(['r1', 'r2', 'r3']);
  });
});
