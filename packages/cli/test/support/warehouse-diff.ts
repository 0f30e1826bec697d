/**
 * The warehouse of examples/warehouse compared with an export's Parquet snapshot, table by table:
 * rows the warehouse has that the snapshot lacks, and the other way round (both 0 when equal),
 * plus each table's row count under `<resource> rows`.
 */
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EXPORT_TABLE } from '@rcs/client';
import { expect } from 'vitest';

export async function difference(
  database: string,
  exportDir: string,
): Promise<Record<string, [number, number]>> {
  const db = await DuckDBInstance.create(database);
  const c = await db.connect();
  const out: Record<string, [number, number]> = {};
  try {
    const tables = [
      ...EXPORT_TABLE.map((e) => [e.resource, `${e.resource}.parquet`]),
      ['real-call-session-items', 'real-call-session-items.parquet'],
    ];
    for (const [resource, file] of tables) {
      const table = `"${resource!.replaceAll('-', '_')}"`;
      const parquet = `read_parquet('${join(exportDir, file!)}')`;
      const count = async (sql: string) =>
        Number((await c.runAndReadAll(sql)).getRowObjectsJS()[0]!.n);
      out[resource!] = [
        await count(
          `SELECT count(*) AS n FROM (SELECT * FROM ${table} EXCEPT ALL SELECT * FROM ${parquet})`,
        ),
        await count(
          `SELECT count(*) AS n FROM (SELECT * FROM ${parquet} EXCEPT ALL SELECT * FROM ${table})`,
        ),
      ];
      out[`${resource} rows`] = [await count(`SELECT count(*) AS n FROM ${table}`), 0];
    }
  } finally {
    c.closeSync();
    db.closeSync();
  }
  return out;
}

export function equalEverywhere(diff: Record<string, [number, number]>): void {
  for (const [name, [a, b]] of Object.entries(diff)) {
    if (name.endsWith(' rows')) continue;
    expect([a, b], name).toEqual([0, 0]);
  }
}

/** The loads the warehouse recorded (`_rcs_loads`), oldest first. */
export async function loadsOf(
  database: string,
): Promise<{ run_id: string; base: string | null; mode: string }[]> {
  const db = await DuckDBInstance.create(database);
  const c = await db.connect();
  try {
    const rows = await c.runAndReadAll(
      'SELECT run_id, base, mode FROM "_rcs_loads" ORDER BY loaded_at',
    );
    return rows.getRowObjectsJS() as { run_id: string; base: string | null; mode: string }[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}
