/**
 * The SDK against the project's mock (its MSW handlers, in-process): the two are written from the
 * same openapi.yaml by different hands, so this is where a disagreement (a status, an error body,
 * the export envelope) shows. Test-only: the client's source never imports the mock.
 */
import {
  AuthenticationError,
  BadRequestError,
  createRcsClient,
  EXPORT_TABLE,
  isUnknownOutcome,
  NotFoundError,
  UnprocessableError,
} from '@rcs/client';
import { createMockApi } from '@rcs/mock';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BASE = 'https://mock.rcs.test';
const mock = createMockApi({ seed: 7, records: 450, processingMs: 50 });
const server = setupServer(...mock.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const apiKey = mock.info.apiKeys[0]!;
const rcs = createRcsClient({ baseUrl: BASE, apiKey, maxRetries: 0 });
const rep = mock.info.repEmails[0]!;
const transcript =
  'Thanks for taking the call today. Let me ask about your current process and budget.';

describe('SDK × mock', () => {
  it('create → waitUntilDone resolves with the DONE session (D4 201 on GET, D18)', async () => {
    const created = await rcs.sessions.create({ transcript, meetingName: 'Contract', email: rep });
    expect(created.state).toBe('PENDING');
    const progress: string[] = [];
    const done = await rcs.sessions.waitUntilDone(created.id, {
      timeoutMs: 10_000,
      initialIntervalMs: 20,
      onProgress: (s) => progress.push(s.state),
    });
    expect(done.id).toBe(created.id);
    expect(done.state).toBe('DONE');
    // The last state reported is DONE, the one the wait resolves with.
    expect(progress.at(-1)).toBe('DONE');
    expect(await rcs.sessions.get(created.id)).toMatchObject({ id: created.id, state: 'DONE' });
  });

  it('a schema failure is a BadRequestError with its errors list (D1, D2)', async () => {
    const error = await rcs.sessions
      .create({ transcript: 'short', meetingName: 'x', email: rep })
      .catch((e) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe('validation_failed');
    expect((error as BadRequestError).errors.length).toBeGreaterThan(0);
  });

  it('an unknown userId is a 422 with reason user_not_found (D2)', async () => {
    const error = await rcs.sessions
      .create({ transcript, meetingName: 'x', userId: '00000000-0000-4000-8000-000000000000' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessableError);
    expect((error as UnprocessableError).reason).toBe('user_not_found');
  });

  it('an unknown session is a NotFoundError; a bad key an AuthenticationError', async () => {
    await expect(rcs.sessions.get('9b2d7c4e-1f3a-4b5c-8d6e-7f8091a2b3c4')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const stranger = createRcsClient({ baseUrl: BASE, apiKey: 'not-a-key-of-the-mock' });
    await expect(stranger.exports.teams.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it.each(EXPORT_TABLE.map((row) => [row.resource]))(
    'exports %s: all() collects exactly meta.total distinct records (D9)',
    async (resource) => {
      const accessor = rcs.exportsByResource(resource);
      const first = await accessor.list({ limit: 7 });
      const all = accessor.all({ limit: 7, concurrency: 3 });
      const records = await all.toArray();
      expect(records).toHaveLength(first.meta.total);
      expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
      expect(all.stats).toMatchObject({ total: first.meta.total, duplicates: 0, missing: 0 });
    },
  );
});

describe('SDK × mock with a connection dropped after the session was created', () => {
  it('the create is not repeated and reports an unknown outcome; the session does exist', async () => {
    const dropping = createMockApi({ seed: 7, records: 100, faults: { dropAfterCreate: true } });
    server.use(...dropping.handlers);
    try {
      const client = createRcsClient({ baseUrl: BASE, apiKey: dropping.info.apiKeys[0]! });
      const error = await client.sessions
        .create({ transcript, meetingName: 'Dropped', email: dropping.info.repEmails[0]! })
        .catch((e) => e);
      expect(isUnknownOutcome(error)).toBe(true);
      // Exactly one session was created: the client did not send the POST again.
      expect(dropping.state.counts().createdSessions).toBe(1);
    } finally {
      server.resetHandlers();
    }
  });
});
