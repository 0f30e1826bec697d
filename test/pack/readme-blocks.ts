/**
 * The code blocks and links of a README, as a reader of the packed package meets them.
 *
 * The info-string convention of every fenced block in the packed READMEs, EXPORT.md and the root
 * README (documented in test/pack/README.md):
 *
 * - `sh`, `ts`, `js`: run by test/pack, in document order, in a fresh project where the packed
 *   tarballs are installed, against a real `rcs mock`.
 * - `<lang> no-run`: shown, never run: a command that runs until Ctrl-C, needs a browser, a proxy,
 *   a global install or the repository, or an excerpt that is not a whole program.
 * - `text`, `json`, `yaml`, `csv`, `sql`: output samples, data and statements for another program,
 *   never run.
 *
 * A block with no info string, or one outside this list, fails the test: every block says
 * whether it runs.
 */

export interface CodeBlock {
  lang: string;
  run: boolean;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

const RUNNABLE = new Set(['sh', 'ts', 'js']);
const DATA = new Set(['text', 'json', 'yaml', 'csv', 'sql']);

/** Every fenced block; throws naming the line of a block whose info string breaks the convention. */
export function codeBlocks(markdown: string, name: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const words = open[2]!.trim().split(/\s+/).filter(Boolean);
    const [lang = '', ...flags] = words;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) body.push(lines[j++]!);
    if (j === lines.length) throw new Error(`${name}:${i + 1}: a code block is never closed`);
    const noRun = flags.length === 1 && flags[0] === 'no-run';
    const known =
      (RUNNABLE.has(lang) && (flags.length === 0 || noRun)) ||
      (DATA.has(lang) && flags.length === 0);
    if (!known) {
      throw new Error(
        `${name}:${i + 1}: code block "${open[2]!.trim()}" breaks the convention: sh|ts|js to run, "<lang> no-run" to show only, text|json|yaml|csv for data (test/pack/README.md)`,
      );
    }
    blocks.push({ lang, run: RUNNABLE.has(lang) && !noRun, line: i + 1, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)` outside code blocks and code spans. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  let inFence = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^(`{3,}|~{3,})/.test(text)) inFence = !inFence;
    if (inFence) return;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      found.push({ target: m[1]!, line: i + 1 });
    }
  });
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let inFence = false;
  for (const text of markdown.split('\n')) {
    if (/^(`{3,}|~{3,})/.test(text)) inFence = !inFence;
    const h = !inFence && /^#{1,6}\s+(.*)$/.exec(text);
    if (!h) continue;
    out.add(
      h[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return out;
}
