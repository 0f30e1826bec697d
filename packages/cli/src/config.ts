import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { readNamedFile } from '@rcs/export/internal';
import { CliError, usageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * The config file (cli.md): `$XDG_CONFIG_HOME/rcs/config.json`, else `~/.config/rcs/config.json`,
 * holding named profiles. It may hold an API key, so it is written 0600 inside a 0700 directory,
 * atomically (a crash never leaves half a file), and its secrets are never printed.
 */

export const CONFIG_KEYS = ['base-url', 'api-key', 'token', 'retry-for'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
export const SECRET_KEYS: readonly ConfigKey[] = ['api-key', 'token'];
export const DEFAULT_PROFILE = 'default';

export type Profile = Partial<Record<ConfigKey, string>>;
export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.config');
  return join(base, 'rcs', 'config.json');
}

/**
 * The profile in use: `--profile`, else `RCS_PROFILE`, else "default" (blank counts as not
 * given). `explicit` when one was named: a named profile that does not exist is an error.
 */
export function profileNameOf(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { name: string; explicit: boolean } {
  const named = flag?.trim() || env.RCS_PROFILE?.trim();
  if (named && !PROFILE_NAME.test(named)) {
    // `__proto__` or `constructor` would address the object's machinery, not a profile.
    throw usageError(
      `profile name "${named.slice(0, 80)}" is not allowed: use letters, digits, - and _ (at most 64, starting with a letter or digit)`,
    );
  }
  return { name: named || DEFAULT_PROFILE, explicit: Boolean(named) };
}

/** Plain identifiers only. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The named profile, never an inherited property (`constructor`, `toString`). */
export function profileOf(config: ConfigFile, name: string): Profile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
}

function isConfigKey(key: string): key is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(key);
}

export function assertConfigKey(key: string): ConfigKey {
  if (!isConfigKey(key)) {
    // `rcs config set api-key=sk_live_…`: the name only, never what follows `=`.
    const shown = key.includes('=') ? `${key.slice(0, key.indexOf('='))}=…` : key;
    throw usageError(`unknown config key "${shown}"; the keys are ${CONFIG_KEYS.join(', ')}`);
  }
  return key;
}

/**
 * Reads the file; a missing file is an empty config, a broken one is an error naming the file.
 * Read as every file the user names is (safe-open.ts): a regular file, at most 1 MB (profiles
 * take a few hundred bytes), through no link another user could have planted.
 */
export async function readConfig(path: string): Promise<ConfigFile> {
  let raw: string;
  try {
    raw = (await readNamedFile(path, 1_000_000)).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { profiles: {} };
    throw new CliError(
      EXIT.failure,
      code === 'EACCES' || code === 'EPERM'
        ? `cannot read the config file ${path}: you have no permission to read it (${code}), perhaps it was written with sudo; make it yours again (\`sudo chown "$USER" ${path}\`), or set XDG_CONFIG_HOME to another directory`
        : `cannot read the config file ${path}: ${(error as Error).message}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new CliError(EXIT.usage, `the config file ${path} is not valid JSON; fix or delete it`);
  }
  const profiles = (parsed as { profiles?: unknown } | null)?.profiles;
  if (profiles === null || typeof profiles !== 'object' || Array.isArray(profiles)) {
    throw new CliError(
      EXIT.usage,
      `the config file ${path} has no "profiles" object; fix or delete it (rcs config set recreates it)`,
    );
  }
  // No prototype: a profile named `__proto__` in a hand-edited file stays a plain entry.
  const out: ConfigFile = { profiles: Object.create(null) as Record<string, Profile> };
  for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new CliError(EXIT.usage, `the config file ${path}: profiles.${name} must be an object`);
    }
    const profile: Profile = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (!isConfigKey(k) || typeof v !== 'string') {
        throw new CliError(
          EXIT.usage,
          `the config file ${path}: profiles.${name}.${k} is not a known string setting (${CONFIG_KEYS.join(', ')})`,
        );
      }
      profile[k] = v;
    }
    out.profiles[name] = profile;
  }
  return out;
}

export async function writeConfig(path: string, config: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // The export's atomic write: a fresh 0600 file (O_EXCL), fsynced, renamed, directory synced.
  // Loaded here: it brings node:crypto, which reading the config (every command) does not need.
  const { writeFileAtomically } = await import('@rcs/export');
  await writeFileAtomically(path, `${JSON.stringify(config, null, 2)}\n`);
}

/** What a user may see of a setting: secrets only as "set". */
export function displayValue(key: ConfigKey, value: string | undefined): string {
  if (value === undefined) return '(not set)';
  return SECRET_KEYS.includes(key) ? '******** (set, hidden)' : value;
}
