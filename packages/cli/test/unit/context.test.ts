import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { makeRedactor } from '@rcs/client/internal';
import { describe, expect, it } from 'vitest';
import { configPath, readConfig, writeConfig } from '../../src/config.js';
import { resolveSettings } from '../../src/context.js';

async function withConfig(profiles: Record<string, Record<string, string>>) {
  const dir = mkdtempSync(join(tmpdir(), 'rcs-config-'));
  const env = { XDG_CONFIG_HOME: dir } as NodeJS.ProcessEnv;
  await writeConfig(configPath(env), { profiles });
  return env;
}

const stdin = (text = '') => Readable.from([text]);

describe('settings: flag > environment > config profile (cli.md)', () => {
  it('a blank --profile counts as not given: RCS_PROFILE applies, as in rcs config', async () => {
    const env = await withConfig({
      default: { 'base-url': 'https://d.example' },
      staging: { 'base-url': 'https://s.example' },
    });
    env.RCS_PROFILE = 'staging';
    expect(await resolveSettings({ profile: ' ' }, { env, stdin: stdin() })).toMatchObject({
      profile: 'staging',
      baseUrl: 'https://s.example',
    });
  });

  it('the profile fills in what neither flag nor env gives', async () => {
    const env = await withConfig({
      default: { 'base-url': 'https://p.example', 'api-key': 'profile-key' },
    });
    expect(await resolveSettings({}, { env, stdin: stdin() })).toMatchObject({
      baseUrl: 'https://p.example',
      apiKey: 'profile-key',
    });
  });

  it('env beats the profile, and a flag beats env', async () => {
    const env = await withConfig({
      default: { 'base-url': 'https://p.example', 'api-key': 'profile-key' },
    });
    env.RCS_API_KEY = 'env-key';
    env.RCS_BASE_URL = 'https://e.example';
    expect(await resolveSettings({}, { env, stdin: stdin() })).toMatchObject({
      baseUrl: 'https://e.example',
      apiKey: 'env-key',
    });
    expect(
      await resolveSettings(
        { apiKey: 'flag-key', baseUrl: 'https://f.example' },
        { env, stdin: stdin() },
      ),
    ).toMatchObject({ baseUrl: 'https://f.example', apiKey: 'flag-key' });
  });

  it('a token flag is not silently combined with an API key from the environment (D22)', async () => {
    const env = await withConfig({});
    env.RCS_API_KEY = 'env-key';
    const s = await resolveSettings({ token: 'jwt' }, { env, stdin: stdin() });
    expect(s).toMatchObject({ token: 'jwt', apiKey: undefined });
  });

  it('--api-key-stdin reads and trims standard input; an empty one is a usage error', async () => {
    const env = await withConfig({});
    expect(
      (await resolveSettings({ apiKeyStdin: true }, { env, stdin: stdin('k-123\n') })).apiKey,
    ).toBe('k-123');
    await expect(
      resolveSettings({ apiKeyStdin: true }, { env, stdin: stdin('\n') }),
    ).rejects.toMatchObject({ exitCode: 2 });
  });

  it('RCS_PROFILE selects a profile; an unknown one names the known ones', async () => {
    const env = await withConfig({ prod: { 'base-url': 'https://prod.example' }, dev: {} });
    env.RCS_PROFILE = 'prod';
    expect((await resolveSettings({}, { env, stdin: stdin() })).baseUrl).toBe(
      'https://prod.example',
    );
    await expect(resolveSettings({ profile: 'qa' }, { env, stdin: stdin() })).rejects.toThrow(
      /no profile "qa".*profiles: prod, dev/,
    );
  });

  it('the config file is written 0600 and a broken one is a clear error', async () => {
    const env = await withConfig({ default: { token: 't' } });
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(configPath(env), '{"profiles": {"default": {"apikey": "x"}}}');
    await expect(readConfig(configPath(env))).rejects.toThrow(
      /profiles\.default\.apikey is not a known string setting/,
    );
  });

  it('the redactor removes every credential from a log line', () => {
    const redact = makeRedactor(['secret-key-1', undefined, 'tok-abc']);
    expect(redact('GET /x key=secret-key-1 auth=Bearer tok-abc')).toBe(
      'GET /x key=[REDACTED] auth=Bearer [REDACTED]',
    );
  });
});
