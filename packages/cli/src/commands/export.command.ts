import { fileURLToPath } from 'node:url';
import { Option } from '@commander-js/extra-typings';
import { usageError } from '../errors.js';
import { didYouMean } from './did-you-mean.js';
import { examples, type RegisterCommand, TIMEOUT_HELP } from './kit.js';

/**
 * A mistyped name (`al`, `user`) gets commander's "Did you mean …?" as a mistyped command does;
 * a name close to none is left to the export's own check, which lists the nine.
 */
function suggestExportNames(resources: readonly string[], exportNames: readonly string[]): void {
  const known: readonly string[] = [...exportNames, 'all'];
  for (const typed of resources.map((r) => r.trim())) {
    if (typed === '' || known.includes(typed)) continue;
    const hint = didYouMean(typed, known);
    if (hint) {
      throw usageError(
        `export: unknown export "${typed}" ${hint}; the exports are: ${exportNames.join(', ')} (or all)`,
      );
    }
  }
}

/**
 * `rcs export` (cli.md, EXPORT.md). The nine names (the client's EXPORT_TABLE) and the default
 * directory (the export engine's DEFAULT_OUT_DIR) are filled in when `rcs export` runs or shows
 * its help: the bundler keeps a package's modules in one chunk, so importing either here would
 * load the whole client and export engine on every `rcs --help` (bench/cli/README.md).
 */
export const registerExport: RegisterCommand = (root, kit) => {
  const command = root
    .command('export')
    .description('export data to JSONL, CSV or Parquet files (EXPORT.md of the installed @rcs/cli)')
    .argument('<resource...>', 'the exports to write, or all')
    .addOption(
      new Option('--format <format>', 'file format')
        .choices(['jsonl', 'csv', 'parquet'] as const)
        .default('jsonl' as const),
    )
    .option('--out <dir>', 'output directory, or - for stdout (one resource)')
    .option('--concurrency <n>', 'requests in flight at once (default 8)')
    .addOption(
      new Option('--archived <mode>', 'tracks only: include or only the archived tracks').choices([
        'include',
        'only',
      ] as const),
    )
    .option('--csv-raw', 'CSV cells exactly as the API gives them (no spreadsheet-formula guard)')
    .option('--bom', 'start CSV files with a UTF-8 BOM (for Excel)')
    .option(
      '--allow-drift',
      'accept an export whose count drifted while it ran (warns in the manifest)',
    )
    .option('--row-group-rows <n>', 'Parquet: cut a row group at this many rows (default 100000)')
    .option(
      '--row-group-bytes <n>',
      'Parquet: or at this many bytes of uncompressed data, if first (default 67108864, 64 MiB)',
    )
    .addOption(
      new Option(
        '--compression <codec>',
        'Parquet: compression of the pages (default snappy; zstd needs Node 22.15 or later)',
      ).choices(['snappy', 'zstd', 'none'] as const),
    )
    .option(
      '--changes',
      'also write <resource>.changes.jsonl: what was inserted, updated, deleted since the last run in the directory',
    )
    .option(
      '--ack <run>',
      'with --changes: the run id your warehouse applied last; the changes go from that run (FORMATS.md)',
    )
    .option('--full', 'with --changes: compare with no earlier run (every record an insert)')
    .option(
      '--force',
      "write into a directory that holds another service's export (its files are replaced)",
    )
    .option('--timeout <seconds>', TIMEOUT_HELP)
    .addHelpText(
      'after',
      `${examples([
        'rcs export all',
        'rcs export users teams --format csv --out ./backup',
        'rcs export all --format parquet --changes --out ./warehouse',
        'rcs export all --format parquet --changes --ack 20261125T020000Z-3fa9c1 --out ./warehouse',
        'rcs export real-call-sessions --out - | jq .learnerUserId',
      ])}\nThe flags, files and exit codes: EXPORT.md; the formats and the change contract: FORMATS.md.\nBoth are in ${fileURLToPath(new URL('..', import.meta.url))} (the installed @rcs/cli).\n`,
    )
    .action(
      kit.action(async (ctx, resources, opts) => {
        const [{ EXPORT_RESOURCES }, { runExport }] = await Promise.all([
          import('@rcs/client'),
          import('./export.js'),
        ]);
        suggestExportNames(resources, EXPORT_RESOURCES);
        // Every option, the integer flags included, is checked in runExport (exit 2).
        return runExport(
          {
            resources,
            format: opts.format,
            out: opts.out,
            concurrency: opts.concurrency,
            rowGroupRows: opts.rowGroupRows,
            rowGroupBytes: opts.rowGroupBytes,
            compression: opts.compression,
            ...(opts.archived ? { archived: opts.archived } : {}),
            csvRaw: Boolean(opts.csvRaw),
            bom: Boolean(opts.bom),
            allowDrift: Boolean(opts.allowDrift),
            changes: Boolean(opts.changes),
            ...(opts.ack !== undefined ? { ack: opts.ack } : {}),
            full: Boolean(opts.full),
            force: Boolean(opts.force),
            timeout: opts.timeout,
          },
          ctx,
        );
      }),
    );
  root.hook('preSubcommand', async (_root, sub) => {
    if (sub !== command) return;
    const [{ EXPORT_RESOURCES }, { DEFAULT_OUT_DIR }] = await Promise.all([
      import('@rcs/client'),
      import('@rcs/export'),
    ]);
    const [resource] = command.registeredArguments;
    if (resource) resource.description = `${EXPORT_RESOURCES.join(', ')}, or all`;
    command.options.find((o) => o.long === '--out')?.default(DEFAULT_OUT_DIR);
    command.setOptionValueWithSource('out', DEFAULT_OUT_DIR, 'default');
  });
};
