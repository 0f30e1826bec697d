#!/usr/bin/env node
// The nightly warehouse load: export the nine resources as Parquet with --changes, then merge the
// changes into a DuckDB database, one transaction per night (README.md beside this file).
//
//   node nightly-load.mjs <export-dir> <warehouse.duckdb> [--print-sql] [--full]
//
// Needs `npm install @rcs/cli @duckdb/node-api` in this directory or a parent. Credentials come
// from the environment or a profile, as for any `rcs` command (RCS_BASE_URL, RCS_API_KEY or
// RCS_PROFILE). rcs is the @rcs/cli installed beside this file, run by this same node (cron's
// PATH need not have it); RCS_BIN overrides how rcs is started (e.g. `rcs` from PATH).
// --print-sql prints the statements instead of running them: the same MERGE works, with the
// file paths swapped for a stage, in Snowflake, BigQuery or Databricks. --full asks rcs for a
// fresh start (every record an insert) and reloads every table.
//
// The change contract (FORMATS.md): the warehouse records the run id of each load in the same
// transaction as the load (table _rcs_loads), and names it to the next export with --ack, so
// that night's change files go from exactly what the warehouse holds. Whatever fails or crashes
// (the export, this script, the merge), nothing is lost and nothing is applied twice: a night
// that did not load is included in the next night's changes. When a change file does not start
// from the warehouse's run (--full, a first night, an export directory that is new or was lost,
// e.g. an evicted CI cache), the tables are reloaded from the night's Parquet snapshot instead,
// which is always correct.
//
// real-call-session-items has no change file of its own: its rows are the items of a session's
// analysis, so they follow their session. A session inserted, updated or deleted has all its
// items deleted and those of tonight's snapshot inserted (none for a deleted session).
//
// Exit codes: rcs's own when the export fails (nothing is merged); 1 when the merge fails
// (rolled back; a marker file makes the next night reload every table from its snapshot);
// 2 bad arguments.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [exportDir, database, ...flags] = process.argv.slice(2);
if (!exportDir || !database) {
  console.error('usage: nightly-load.mjs <export-dir> <warehouse.duckdb> [--print-sql] [--full]');
  process.exit(2);
}
const printOnly = flags.includes('--print-sql');
const RELOAD = join(exportDir, '.warehouse-needs-reload');
const LOADS = '"_rcs_loads"';

// 1. What the warehouse holds: the run id of its last load, recorded with the load itself.
const db = await DuckDBInstance.create(
  printOnly && !existsSync(database) ? ':memory:' : database,
  printOnly ? { access_mode: 'READ_ONLY' } : {},
);
const connection = await db.connect();
if (!printOnly) {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${LOADS} (run_id VARCHAR, base VARCHAR, mode VARCHAR, loaded_at TIMESTAMPTZ)`,
  );
}
async function appliedRun() {
  const exists = await connection.runAndReadAll(
    `SELECT count(*) AS n FROM information_schema.tables WHERE table_name = '_rcs_loads'`,
  );
  if (Number(exists.getRowObjectsJS()[0].n) === 0) return null;
  const rows = await connection.runAndReadAll(
    `SELECT run_id FROM ${LOADS} ORDER BY loaded_at DESC LIMIT 1`,
  );
  return rows.getRowObjectsJS()[0]?.run_id ?? null;
}
const applied = flags.includes('--full') ? null : await appliedRun();

// 2. The export: all-or-nothing; the changes go from the run the warehouse holds (--ack).
//    An export directory without a manifest (new, or a CI cache that was evicted) has no run to
//    go from: the export starts afresh (every record an insert) and every table is reloaded.
const [bin, ...binArgs] = process.env.RCS_BIN?.split(' ') ?? installedRcs();
const fresh = !existsSync(join(exportDir, 'manifest.json'));
const since = flags.includes('--full') ? ['--full'] : applied && !fresh ? ['--ack', applied] : [];
const exported = spawnSync(
  bin,
  [...binArgs, 'export', 'all', '--format', 'parquet', '--changes', ...since, '--out', exportDir],
  // Two glibc malloc arenas: a lower peak RSS for big exports (bench/export/README.md).
  { stdio: 'inherit', env: { MALLOC_ARENA_MAX: '2', ...process.env } },
);
if (exported.status !== 0) {
  console.error(`nightly-load: rcs export failed (exit ${exported.status}); nothing merged`);
  process.exit(exported.status ?? 1);
}
/** The @rcs/cli installed beside this file, run by this node; else `rcs` on the PATH. */
function installedRcs() {
  try {
    return [process.execPath, createRequire(import.meta.url).resolve('@rcs/cli/bin/rcs.js')];
  } catch {
    return ['rcs'];
  }
}
const manifest = JSON.parse(readFileSync(join(exportDir, 'manifest.json'), 'utf8'));
const runId = manifest.changes.runId;

const q = (name) => `"${name.replaceAll('"', '""')}"`;
const lit = (text) => `'${text.replaceAll("'", "''")}'`;
const tableOf = (resource) => q(resource.replaceAll('-', '_'));

async function columnsOf(parquet) {
  const reader = await connection.runAndReadAll(
    `DESCRIBE SELECT * FROM read_parquet(${lit(parquet)})`,
  );
  return reader.getRowObjectsJS().map((r) => String(r.column_name));
}

// 2. The statements: per export, create the table once (typed from the Parquet file), then MERGE
//    the night's changes: the change file names what changed, the Parquet file holds the typed row.
const statements = [];
const summary = [];
const forced = existsSync(RELOAD);
let mode = 'merge';
for (const entry of manifest.resources) {
  const parquet = resolve(exportDir, entry.file);
  const changes = resolve(exportDir, entry.changes.file);
  const table = tableOf(entry.resource);
  const columns = await columnsOf(parquet);
  const others = columns.filter((c) => c !== 'id');
  // Merge only a change file that starts from what the warehouse holds; else reload.
  if (forced || entry.changes.base === null || entry.changes.base !== applied) {
    // A full reload from tonight's snapshot (a first night, --full, a failed merge before).
    mode = 'reload';
    statements.push(
      `CREATE OR REPLACE TABLE ${table} AS SELECT * FROM read_parquet(${lit(parquet)})`,
    );
    if (entry.items) {
      const items = resolve(exportDir, entry.items.file);
      const itemsTable = tableOf(entry.items.file.replace(/\.parquet$/, ''));
      statements.push(
        `CREATE OR REPLACE TABLE ${itemsTable} AS SELECT * FROM read_parquet(${lit(items)})`,
      );
    }
    summary.push(`${entry.resource}: reloaded ${entry.count}`);
    continue;
  }
  statements.push(
    `CREATE TABLE IF NOT EXISTS ${table} AS SELECT * FROM read_parquet(${lit(parquet)}) LIMIT 0`,
  );
  summary.push(
    `${entry.resource}: +${entry.changes.inserts} ~${entry.changes.updates} -${entry.changes.deletes}`,
  );
  if (statSync(changes).size === 0) continue;
  const source = `(SELECT c.op, c.id, ${others.map((c) => `p.${q(c)}`).join(', ')}
      FROM read_json(${lit(changes)}, format = 'newline_delimited', columns = {op: 'VARCHAR', id: 'VARCHAR'}) c
      LEFT JOIN read_parquet(${lit(parquet)}) p ON p.id = c.id)`;
  statements.push(`MERGE INTO ${table} t USING ${source} s ON t.id = s.id
    WHEN MATCHED AND s.op = 'delete' THEN DELETE
    WHEN MATCHED THEN UPDATE SET ${others.map((c) => `${q(c)} = s.${q(c)}`).join(', ')}
    WHEN NOT MATCHED AND s.op <> 'delete' THEN INSERT (${columns.map(q).join(', ')})
      VALUES (${columns.map((c) => `s.${q(c)}`).join(', ')})`);
  if (entry.items) {
    // The items follow their sessions (no change file of their own): every session in the change
    // file, whatever its op, loses its items, and gets tonight's (none once it is deleted).
    const items = resolve(exportDir, entry.items.file);
    const itemsTable = tableOf(entry.items.file.replace(/\.parquet$/, ''));
    const changed = `(SELECT id FROM read_json(${lit(changes)}, format = 'newline_delimited', columns = {op: 'VARCHAR', id: 'VARCHAR'}))`;
    statements.push(
      `CREATE TABLE IF NOT EXISTS ${itemsTable} AS SELECT * FROM read_parquet(${lit(items)}) LIMIT 0`,
      `DELETE FROM ${itemsTable} WHERE "sessionId" IN ${changed}`,
      `INSERT INTO ${itemsTable} SELECT * FROM read_parquet(${lit(items)}) WHERE "sessionId" IN ${changed}`,
    );
  }
}

if (printOnly) {
  for (const statement of statements) console.log(`${statement};\n`);
  process.exit(0);
}

// 3. One transaction: the warehouse moves from one night's snapshot to the next, or not at all,
//    and records which run it now holds in the same step.
statements.push(
  `INSERT INTO ${LOADS} VALUES (${lit(runId)}, ${applied === null ? 'NULL' : lit(applied)}, ${lit(mode)}, now())`,
);
try {
  await connection.run('BEGIN TRANSACTION');
  for (const statement of statements) await connection.run(statement);
  await connection.run('COMMIT');
} catch (error) {
  await connection.run('ROLLBACK').catch(() => {});
  const why = String(error.message).split('\n')[0];
  writeFileSync(RELOAD, `${new Date().toISOString()} ${why}\n`);
  console.error(
    `nightly-load: the merge failed and was rolled back (${why}); the next run reloads every table from its snapshot`,
  );
  process.exit(1);
}
if (forced) rmSync(RELOAD);
connection.closeSync();
console.log(`nightly-load: run ${runId} merged into ${database}: ${summary.join(', ')}`);
