import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';

/** The recipe: plain files the package ships (templates/nightly), the repository's examples. */
const FILES = ['README.md', 'nightly-load.mjs', 'nightly.sh', 'crontab.txt', 'rcs-nightly.yml'];

/**
 * Writes the nightly recipe into `dir`, each file created exclusively, all or nothing (as dlt
 * init): a file already there is named, nothing is written and the exit is 2, since a recipe
 * with one of its files from elsewhere would not fit together.
 */
export async function run(opts: { dir: string }, ctx: CliContext) {
  const to = resolve(ctx.cwd, opts.dir);
  mkdirSync(to, { recursive: true });
  const fds: number[] = [];
  try {
    for (const name of FILES)
      fds.push(openSync(join(to, name), 'wx', /\.(sh|mjs)$/.test(name) ? 0o755 : 0o644));
  } catch (error) {
    for (const [i, fd] of fds.entries()) {
      closeSync(fd);
      rmSync(join(to, FILES[i]!));
    }
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw usageError(
      `${join(to, FILES[fds.length]!)} already exists; nothing was written (rcs init never replaces a file: move it away or name another directory)`,
    );
  }
  for (const [i, fd] of fds.entries()) {
    writeSync(fd, readFileSync(new URL(`../templates/nightly/${FILES[i]}`, import.meta.url)));
    closeSync(fd);
  }
  const log = join(to, 'nightly.log');
  const cron = `15 2 * * * PATH=${[...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':')} RCS_PROFILE=prod ${join(to, 'nightly.sh')} >>${log} 2>&1 || echo "rcs nightly failed: see ${log}"`;
  ctx.stdout.write(
    ctx.json
      ? `${JSON.stringify({ dir: to, files: FILES, crontab: cron })}\n`
      : `wrote ${FILES.join(', ')} to ${to}\nnext (README.md there says more):\n  cd ${to} && npm install @rcs/cli @duckdb/node-api\n  set RCS_BASE_URL and RCS_API_KEY (or RCS_PROFILE), then: node nightly-load.mjs export warehouse.duckdb\n  cron (crontab -e): ${cron}\n  GitHub Actions: copy rcs-nightly.yml to .github/workflows/ and set the two secrets\n`,
  );
  return 0;
}
