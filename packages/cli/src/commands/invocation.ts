import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';

/**
 * How the user runs `rcs`, so that the next steps the CLI prints can be typed as they are:
 * `rcs` after a global install, `npx rcs` in a project that installed @rcs/cli (or in
 * this repository), `npx @rcs/cli` when npx fetched it for one run. `script` is the running
 * bin/rcs.js (process.argv[1]).
 */
export function howToRun(script: string | undefined, env: NodeJS.ProcessEnv): string {
  const real = script ? realPath(script) : undefined;
  // npx's one-off installs live in the npm cache's _npx folder: only the package name finds it again.
  if (real?.split(sep).includes('_npx')) return 'npx @rcs/cli';
  // Run through npm (npx rcs, npm run): npm put node_modules/.bin on PATH for this run only.
  if (env.npm_command === 'exec' || env.npm_command === 'run-script') return 'npx rcs';
  if (real && onPath('rcs', env).some((found) => realPath(found) === real)) return 'rcs';
  return 'npx rcs';
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string[] {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .filter((path) => existsSync(path));
}
