/**
 * @rcs/export: the export engine (pages in, files out: JSONL, CSV, Parquet; atomic commit,
 * manifest, change tracking), for `rcs export` and for any Node program.
 */
export { ChangesStateError } from './changes/changes.js';
export { ExportUsageError } from './errors.js';
export { writeFileAtomically } from './files/atomic-file.js';
export { ExportLockedError } from './files/lock.js';
export type {
  ExportFormat,
  Manifest,
  ManifestEntry,
  ResourceStatus,
  RunSummary,
} from './files/manifest.js';
export { prepareOutputDirectory } from './files/out-dir.js';
export { recordShapeOf, SESSION_ITEM_SHAPE } from './formats/parquet-schema.js';
export {
  DEFAULT_EXPORT_CONCURRENCY,
  DEFAULT_OUT_DIR,
  type ExportOptions,
  type ExportPlan,
  MAX_CONCURRENCY,
  planExport,
} from './options.js';
export { ExportIntegrityError } from './pager.js';
export type { ExportProgress } from './progress.js';
export {
  type ExportClient,
  type ExportScope,
  exportToDirectory,
  exportToStream,
  type RequestCounts,
  ResourceExportError,
  type RunDeps,
} from './run.js';
export type { FieldShape, NamedShape, RecordShape } from './shape.js';
