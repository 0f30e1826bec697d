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

  /** Forgets every diagnostic of `code` (a reading that turned out not to apply). */
  drop(code: string): void {
    this.counts.delete(code);
    for (let i = this.items.length - 1; i >= 0; i--)
      if (this.items[i]!.code === code) this.items.splice(i, 1);
  }

  /** The list in line order (whole-text ones first), then one summary per capped code. */
  finish(): Diagnostic[] {
    // Array.prototype.sort is stable: diagnostics of one line keep the order they were found in.
    this.items.sort((a, b) => a.line - b.line);
    for (const [code, n] of this.counts) {
      if (n > MAX_PER_CODE) {
        // More than MAX_PER_CODE were counted, so MAX_PER_CODE of them are listed.
        const first = this.items.find((d) => d.code === code)!;
        this.items.push({
          code,
          severity: first.severity,
          line: 0,
          message: `${n - MAX_PER_CODE} more '${code}' diagnostics not listed (${n} in total).`,
        });
      }
    }
    return this.items;
  }
}
