import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';

/** Each recipe's files: plain files in the package (templates/<recipe>), never TypeScript. */
const RECIPES = {
  nightly: ['README.md', 'nightly-load.mjs', 'nightly.sh', 'crontab.txt', 'rcs-nightly.yml'],
};

/**
 * Writes a recipe's files into `dir`, each created exclusively, all or nothing (dlt init): a
 * file already there is named, nothing is written and the exit is 2, since a recipe with one of
 * its files from elsewhere would not fit together.
 */
export async function run(opts: { recipe: keyof typeof RECIPES; dir: string }, ctx: CliContext) {
  const to = resolve(ctx.cwd, opts.dir);
  const files = RECIPES[opts.recipe];
  mkdirSync(to, { recursive: true });
  const opened: [string, number][] = [];
  try {
    for (const name of files) {
      opened.push([name, openSync(join(to, name), 'wx', /\.(sh|mjs)$/.test(name) ? 0o755 : 0o644)]);
    }
  } catch (error) {
    for (const [name, fd] of opened) {
      closeSync(fd);
      unlinkSync(join(to, name));
    }
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw usageError(
      `${join(to, files[opened.length] ?? '')} already exists; nothing was written (rcs init never replaces a file: move it away or name another directory)`,
    );
  }
  const from = new URL(`../templates/${opts.recipe}/`, import.meta.url);
  for (const [name, fd] of opened) {
    writeSync(fd, readFileSync(new URL(name, from)));
    closeSync(fd);
  }
  const log = join(to, 'nightly.log');
  const cron = `15 2 * * * PATH=${[...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':')} RCS_PROFILE=prod ${join(to, 'nightly.sh')} >>${log} 2>&1 || echo "rcs nightly failed: see ${log}"`;
  ctx.stdout.write(
    ctx.json
      ? `${JSON.stringify({ dir: to, files, crontab: cron })}\n`
      : `wrote ${files.join(', ')} to ${to}\nnext (README.md there says more):\n  cd ${to} && npm install @rcs/cli @duckdb/node-api\n  set RCS_BASE_URL and RCS_API_KEY (or RCS_PROFILE), then: node nightly-load.mjs export warehouse.duckdb\n  cron (crontab -e): ${cron}\n  GitHub Actions: copy rcs-nightly.yml to .github/workflows/ and set the two secrets\n`,
  );
  return 0;
}
