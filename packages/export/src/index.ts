/**
 * @rcs/export: the export engine of `rcs export` for any Node program. The nine data exports
 * of the Real-Call Scoring and Coaching Data API to JSONL, CSV or Parquet files, complete and
 * exact or not at all (atomic commit, a manifest, change tracking). See README.md.
 */
export { ChangesStateError } from './changes/changes.js';
export { ExportError, ExportUsageError } from './errors.js';
export {
  type ExportResourcesOptions,
  type ExportResult,
  type ExportSettings,
  type ExportStreamOptions,
  exportResources,
  exportResourceToStream,
  type StreamResult,
  type StreamSettings,
} from './export-resources.js';
export { writeFileAtomically } from './files/atomic-file.js';
export { ExportLockedError } from './files/lock.js';
export type {
  ExportFormat,
  Manifest,
  ManifestChanges,
  ManifestEntry,
  ResourceStatus,
  RunSummary,
} from './files/manifest.js';
export { UnsafeFileError } from './files/safe-open.js';
export { PARQUET_COMPRESSIONS, type ParquetCompression } from './formats/parquet-compression.js';
export { recordShapeOf, SESSION_ITEM_SHAPE } from './formats/parquet-schema.js';
export { ParquetValueError } from './formats/parquet-shred.js';
export {
  DEFAULT_EXPORT_CONCURRENCY,
  DEFAULT_OUT_DIR,
  DEFAULT_ROW_GROUP_BYTES,
  DEFAULT_ROW_GROUP_ROWS,
  type ExportOptions,
  type ExportPlan,
  MAX_CONCURRENCY,
  MAX_ROW_GROUP_BYTES,
  MAX_ROW_GROUP_ROWS,
  planExport,
} from './options.js';
export type { WritableLike } from './outputs.js';
export { ExportIntegrityError } from './pager.js';
export type { ExportProgressEvent, ProgressListener } from './progress.js';
export {
  type ExportClient,
  type ExportScope,
  type RequestCounts,
  ResourceExportError,
} from './run.js';
export type { FieldShape, NamedShape, RecordShape } from './shape.js';
export { ImpossibleValueError } from './values.js';
