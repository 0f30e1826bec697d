/**
 * A service for the engine's tests: each export's records, answered a page at a time with the
 * `meta` the API gives (`total`, `page`, `limit`, `hasNext`), and every request noted.
 */
import { stat } from 'node:fs/promises';
import { PageBody } from '@rcs/client';
import { sha } from '../../../../test/support/files.js';
import type { ExportClient } from '../../src/run.js';

type ListOptions = Parameters<ReturnType<ExportClient['exportsByResource']>['listBody']>[0];

export interface FakeService {
  client: ExportClient;
  /** Every request, in the order asked. */
  requests: { resource: string; options: ListOptions }[];
}

export function fakeService(
  records: Readonly<Record<string, readonly object[]>>,
  options: {
    /** `meta.total` announced per export, when it is not the number of records (drift). */
    totals?: Readonly<Record<string, number>>;
    /** Exports whose every request fails with `<resource> is down`… */
    down?: readonly string[];
    /** …once this has resolved (at once without it). */
    downWhen?: Promise<void>;
    baseUrl?: string;
  } = {},
): FakeService {
  const requests: FakeService['requests'] = [];
  const client: ExportClient = {
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    exportsByResource: (resource) => ({
      listBody: async (list) => {
        requests.push({ resource, options: list });
        if (options.down?.includes(resource)) {
          await options.downWhen;
          throw new Error(`${resource} is down`);
        }
        const all = records[resource] ?? [];
        const { page, limit } = list;
        const total = options.totals?.[resource] ?? all.length;
        const data = all.slice((page - 1) * limit, page * limit);
        const meta = { total, page, limit, hasNext: page * limit < all.length };
        return new PageBody(new TextEncoder().encode(JSON.stringify({ data, meta })));
      },
    }),
  };
  return { client, requests };
}

/** A clock for `RunDeps.now` that moves one second at every reading: durations are not 0. */
export function steppingClock(start = '2026-11-29T10:00:00.000Z'): () => Date {
  let t = Date.parse(start);
  return () => {
    t += 1000;
    return new Date(t);
  };
}

/** A file's size and SHA-256, as the manifest gives them. */
export async function bytesAndHash(path: string): Promise<{ bytes: number; sha256: string }> {
  return { bytes: (await stat(path)).size, sha256: await sha(path) };
}

/** A real-call session record as the API sends it, with the analysis given. */
export function session(n: number, analysis: unknown): Record<string, unknown> {
  const day = String((n % 28) + 1).padStart(2, '0');
  return {
    id: `s${n}`,
    createdAt: `2026-01-${day}T09:00:00.000Z`,
    lastUpdatedAt: `2026-01-${day}T10:00:00.000Z`,
    learnerUserId: `u${n}`,
    transcript: `call ${n}`,
    language: 'en',
    completed: true,
    ...(analysis === undefined ? {} : { analysis }),
    missionId: null,
    participantUserIds: [`u${n}`],
  };
}

/** One analysis item of a session. */
export const item = (name: string, itemScore: number) => ({
  name,
  solved: 'solved',
  explanation: null,
  suggestion: null,
  itemScore,
});
