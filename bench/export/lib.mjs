// Shared helpers of the export benches: start the mock and run the built CLI as processes.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RCS = join(ROOT, 'packages/cli/dist/rcs.js');
const PROBE = fileURLToPath(new URL('./rss-probe.mjs', import.meta.url));

export function requireBuild() {
  if (!existsSync(RCS)) {
    console.error(`${RCS} is missing: run \`npm run build\` first`);
    process.exit(2);
  }
}

/** `rcs mock` in its own process (its memory and its event loop are not the exporter's). */
export async function startMock(args) {
  const child = spawn(process.execPath, [RCS, 'mock', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let text = '';
  await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}`)));
    child.stdout.on('data', (c) => {
      text += c.toString();
      if (/API key: \S+/.test(text)) resolve();
    });
  });
  const url = text.split('\n')[0].trim();
  const apiKey = /API key: (\S+)/.exec(text)[1];
  return {
    url,
    apiKey,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Runs `rcs export …` against the mock; returns wall time, peak RSS and the manifest. */
/**
 * Runs `rcs export ARGS --out DIR` `repeat` times in the same directory (a second run with
 * `--changes` compares with the first one's state) and reports the last run.
 */
export async function runExport(mock, args, { repeat = 1, prefix = [] } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'rcs-export-bench-'));
  try {
    let last;
    for (let i = 0; i < repeat; i++) last = await runExportOnce(mock, args, dir, prefix);
    return last;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `prefix`: a command that runs the CLI (e.g. into a memory cgroup; memory-limited.mjs). */
async function runExportOnce(mock, args, dir, prefix) {
  const rssFile = join(dir, '.rss');
  const started = process.hrtime.bigint();
  const code = await new Promise((resolve) => {
    const command = [process.execPath, '--import', PROBE, RCS, 'export', ...args];
    const [file, ...rest] = [...prefix, ...command, '--out', join(dir, 'out')];
    const child = spawn(file, rest, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        RCS_BASE_URL: mock.url,
        RCS_API_KEY: mock.apiKey,
        RCS_BENCH_RSS_FILE: rssFile,
      },
    });
    child.on('exit', resolve);
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`rcs export ${args.join(' ')} exited with ${code}`);
  const manifest = JSON.parse(await readFile(join(dir, 'out', 'manifest.json'), 'utf8'));
  const { rssBytes, cpuMs } = JSON.parse(await readFile(rssFile, 'utf8'));
  const files = await readdir(join(dir, 'out'));
  const parquetFooters = {};
  for (const file of files.filter((f) => f.endsWith('.parquet'))) {
    parquetFooters[file] = await parquetFooterBytes(join(dir, 'out', file));
  }
  return { wallMs, rssBytes, cpuMs, manifest, parquetFooters };
}

/** The footer's length as a Parquet file states it (the 4 bytes before the closing magic). */
async function parquetFooterBytes(path) {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const tail = Buffer.alloc(8);
    await handle.read(tail, 0, 8, size - 8);
    return tail.readUInt32LE(0);
  } finally {
    await handle.close();
  }
}

/** The baseline: one request at a time, page after page, export after export. */
export async function sequentialPageLoop(mock, paths) {
  const started = process.hrtime.bigint();
  let records = 0;
  let pages = 0;
  for (const path of paths) {
    for (let page = 1; ; page++) {
      const res = await fetch(`${mock.url}${path}?page=${page}&limit=100`, {
        headers: { 'X-API-KEY': mock.apiKey },
      });
      if (res.status !== 200) throw new Error(`${path} page ${page}: ${res.status}`);
      const body = await res.json();
      records += body.data.length;
      pages++;
      if (!body.meta.hasNext) break;
    }
  }
  return { wallMs: Number(process.hrtime.bigint() - started) / 1e6, records, pages };
}

const FLOOR = fileURLToPath(new URL('./fetch-floor.mjs', import.meta.url));

/** The bare fetch-and-parse loop (fetch-floor.mjs) over the mock's pages: its peak RSS. */
export function bareLoop(mock) {
  return new Promise((resolve, reject) => {
    let out = '';
    const child = spawn(process.execPath, [FLOOR, mock.url, mock.apiKey], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`floor ${code}`)),
    );
  });
}

export const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
