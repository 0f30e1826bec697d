import {
  assertConfigKey,
  CONFIG_KEYS,
  configPath,
  displayValue,
  profileNameOf,
  profileOf,
  readConfig,
  SECRET_KEYS,
  writeConfig,
} from '../config.js';
import { assertNoUrlCredentials, type CliContext, readAll } from '../context.js';
import { CliError, usageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { parseDuration } from '../network/deadline.js';
import { safeLine } from '../output/sanitize.js';

export interface ConfigOptions {
  action: 'set' | 'get' | 'list' | 'unset';
  key?: string;
  value?: string;
  /** The global --profile, else RCS_PROFILE, else "default". */
  profile?: string;
  stdin: NodeJS.ReadableStream;
}

/**
 * `rcs config set|get|list|unset`: the profiles of the config file. A secret can be given as `-`
 * to read it from standard input (not in shell history), and is never printed back.
 */
export async function run(opts: ConfigOptions, ctx: CliContext): Promise<number> {
  const path = configPath(ctx.env);
  const profileName = profileNameOf(opts.profile, ctx.env).name;
  const config = await readConfig(path);

  if (opts.action === 'list') {
    const view: Record<string, Record<string, string>> = {};
    for (const [name, profile] of Object.entries(config.profiles)) {
      view[name] = {};
      for (const key of CONFIG_KEYS) {
        if (profile[key] !== undefined) view[name][key] = displayValue(key, profile[key]);
      }
    }
    if (ctx.json) {
      ctx.stdout.write(`${JSON.stringify({ path, profiles: view })}\n`);
    } else if (Object.keys(view).length === 0) {
      ctx.stdout.write(`no profiles yet in ${path}; start with: rcs config set base-url URL\n`);
    } else {
      const lines = [`# ${path}`];
      for (const [name, settings] of Object.entries(view)) {
        lines.push(`[${safeLine(name)}]`);
        for (const [k, v] of Object.entries(settings)) lines.push(`  ${k} = ${safeLine(v)}`);
      }
      ctx.stdout.write(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  }

  if (opts.key === undefined)
    throw usageError(`rcs config ${opts.action} needs a key (${CONFIG_KEYS.join(', ')})`);
  const key = assertConfigKey(opts.key);
  const profile = profileOf(config, profileName);

  if (opts.action === 'get') {
    const value = profile?.[key];
    if (value === undefined) {
      throw new CliError(
        EXIT.failure,
        `${key} is not set in profile "${profileName}"; set it with rcs config set ${key} …`,
      );
    }
    if (ctx.json) {
      ctx.stdout.write(
        `${JSON.stringify({ profile: profileName, key, value: displayValue(key, value), set: true })}\n`,
      );
    } else ctx.stdout.write(`${safeLine(displayValue(key, value))}\n`);
    return EXIT.ok;
  }

  if (opts.action === 'unset') {
    if (profile) delete profile[key];
    await writeConfig(path, config);
    ctx.log(`unset ${key} in profile "${profileName}" (${path})`);
    return EXIT.ok;
  }

  let value = opts.value;
  if (value === undefined)
    throw usageError(`rcs config set ${key} needs a value (or - to read it from standard input)`);
  if (value === '-') value = (await readAll(opts.stdin)).trim();
  if (value === '') throw usageError(`the value of ${key} is empty`);
  if (key === 'base-url') {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw usageError(
        `base-url "${value}" is not an absolute URL such as https://api.example.com`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw usageError(`base-url must be http or https, got ${url.protocol}`);
    }
    assertNoUrlCredentials(value, 'base-url');
  }
  if (key === 'retry-for') parseDuration('retry-for', value);
  if (SECRET_KEYS.includes(key) && opts.value !== '-') {
    // Always on stderr, also in scripts: the secret is now in the shell history.
    ctx.error(
      `warning: the ${key} given on the command line stays in your shell history and the process list; \`rcs config set ${key} -\` reads it from standard input instead`,
    );
  }
  config.profiles[profileName] = { ...profile, [key]: value };
  await writeConfig(path, config);
  ctx.log(`set ${key} in profile "${profileName}" (${path}, mode 0600)`);
  return EXIT.ok;
}
