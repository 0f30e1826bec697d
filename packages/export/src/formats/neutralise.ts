/**
 * CSV formula-injection neutralisation (OWASP "CSV injection").
 *
 * Spreadsheets run a cell as a formula when its text starts with `=`, `+`, `-` or `@` (also after
 * leading spaces, in Excel and LibreOffice), and tab, CR or LF at the start are used to smuggle
 * such a prefix past naive checks. Names, titles and transcripts come from people and from the
 * service, so a cell like `=HYPERLINK("http://evil","click")` must reach the spreadsheet as text.
 * We prefix such a cell with a single quote, which every spreadsheet shows as "text follows" and
 * hides. Plain numbers (`-2`, `+1`, `3.5e-2`) are left alone: they are values, not formulas, and
 * a quote would turn a score into text. The full-width forms (＝＋－＠) are treated like the ASCII
 * ones because some spreadsheets normalise them.
 *
 * `--csv-raw` skips this, for loaders that want the exact values (document: FORMATS.md).
 */

const FORMULA_START = /^\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;
const CONTROL_START = /^[ \u00A0]*[\t\r\n]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

const NEUTRALISING_PREFIX = "'";

/** Whether a spreadsheet could read this cell as a formula (and it is not a plain number). */
export function isFormulaLike(cell: string): boolean {
  if (cell.length === 0) return false;
  if (PLAIN_NUMBER.test(cell)) return false;
  return FORMULA_START.test(cell) || CONTROL_START.test(cell);
}

export function neutraliseCell(cell: string): string {
  return isFormulaLike(cell) ? NEUTRALISING_PREFIX + cell : cell;
}
