/**
 * What the engine reports while it runs, once per page written and once when an export ends:
 * its records written so far against the API's `meta.total`.
 */
export interface ExportProgressEvent {
  /** The export's path name (`users`, `real-call-sessions`, …). */
  resource: string;
  /** Records written so far. */
  count: number;
  /** `meta.total` of the last page read. */
  total: number;
  /** `running` while pages come; `done` at the end, or `drift` when accepted under allowDrift. */
  status: 'running' | 'done' | 'drift';
}

export type ProgressListener = (event: ExportProgressEvent) => void;
