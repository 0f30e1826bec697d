/** What the engine reports while it runs: records per resource against the API's total. */
export interface ExportProgress {
  update(resource: string, count: number, total: number): void;
  finish(resource: string, status: string): void;
  /** Stops redrawing and leaves the last frame on screen. */
  stop(): void;
}
