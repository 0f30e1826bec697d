import type { Diagnostic, Severity } from './types.js';

/** Most diagnostics of one code that are listed; the rest are counted in one summary line. */
export const MAX_PER_CODE = 50;

/**
 * Collects diagnostics with a cap per code, so a 10 MB file with a systematic quirk yields a
 * readable report and memory stays linear in the number of distinct problems.
 */
export class DiagnosticList {
  readonly items: Diagnostic[] = [];
  private readonly counts = new Map<string, number>();

  add(code: string, severity: Severity, line: number, message: string): void {
    const n = (this.counts.get(code) ?? 0) + 1;
    this.counts.set(code, n);
    if (n <= MAX_PER_CODE) this.items.push({ code, message, line, severity });
  }

  /** The list, with one summary per capped code. */
  finish(): Diagnostic[] {
    for (const [code, n] of this.counts) {
      if (n > MAX_PER_CODE) {
        const first = this.items.find((d) => d.code === code);
        this.items.push({
          code,
          severity: first?.severity ?? 'warning',
          line: 0,
          message: `${n - MAX_PER_CODE} more '${code}' diagnostics not listed (${n} in total).`,
        });
      }
    }
    return this.items;
  }
}
