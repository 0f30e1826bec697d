import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO, runCli, tempDir } from './helpers.js';

// The user's words: help and packed docs say the rule itself, never the project's decision or
// rule numbers ("D17", "rule 8", "R6"), and the packed docs point only at what an installed
// package has (its own files, or an absolute URL), not at the repository's docs/, bench/, …

/** A decision or rule number as the project writes them: D17, R6, rule 8, rules 4–6. */
const NUMBERED = /\b(?:D\d+|R\d+)\b|\brules? \d/;

/** A path of the repository, which no installed package has. */
const REPOSITORY_PATH =
  /(?:^|[\s`(["'])(?:\.\.\/|docs\/|bench\/|examples\/|packages\/|test\/|scripts\/|stryker\/)/;

let cwd: string;
beforeAll(() => {
  assertBuilt();
  cwd = tempDir();
});

/** Every command's help, sub-commands included, and the help topics. */
async function allHelp(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  const visit = async (path: string[]) => {
    const r = await runCli([...path, '--help'], { cwd });
    expect(r.code, `${path.join(' ')} --help`).toBe(0);
    out.push([['rcs', ...path].join(' '), r.stdout]);
    const commands = r.stdout.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
    for (const m of commands.matchAll(/^ {2}([a-z][a-z-]*)/gm)) {
      if (m[1] !== 'help') await visit([...path, m[1]!]);
    }
  };
  await visit([]);
  const topics = await runCli(['help', 'exit-codes'], { cwd });
  out.push(['rcs help exit-codes', topics.stdout]);
  return out;
}

describe('help says the rule, not its number', () => {
  it('every command and sub-command', async () => {
    const help = await allHelp();
    expect(help.map(([what]) => what)).toEqual(
      expect.arrayContaining(['rcs', 'rcs upload', 'rcs export', 'rcs sessions get', 'rcs check']),
    );
    const found = help.flatMap(([what, text]) =>
      text
        .split('\n')
        .filter((l) => NUMBERED.test(l) || REPOSITORY_PATH.test(l))
        .map((l) => `${what}: ${l.trim()}`),
    );
    expect(found).toEqual([]);
  });
});

/** The docs each package packs (its README and every other .md of its `files`). */
function packedDocs(): { name: string; dir: string; text: string }[] {
  const docs: { name: string; dir: string; text: string }[] = [];
  for (const pkg of ['cli', 'client', 'export', 'mock', 'transcript']) {
    const dir = join(REPO, 'packages', pkg);
    const { files } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      files: string[];
    };
    for (const f of files.filter((x) => x.endsWith('.md')))
      docs.push({ name: `@rcs/${pkg} ${f}`, dir, text: readFileSync(join(dir, f), 'utf8') });
  }
  return docs;
}

describe('the packed docs', () => {
  it('cite no decision or rule numbers', () => {
    const found = packedDocs().flatMap(({ name, text }) =>
      text
        .split('\n')
        .flatMap((l, i) => (NUMBERED.test(l) ? [`${name}:${i + 1}: ${l.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('link only to files of the same package or to absolute URLs, and name no repository path', () => {
    const found: string[] = [];
    for (const { name, dir, text } of packedDocs()) {
      text.split('\n').forEach((l, i) => {
        for (const m of l.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1]!;
          if (/^https:\/\//.test(target) || target.startsWith('#')) continue;
          const file = target.split('#')[0]!;
          const packed = (
            JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { files: string[] }
          ).files;
          if (!packed.some((f) => file === f || file.startsWith(`${f}/`)))
            found.push(`${name}:${i + 1}: link to ${target}`);
        }
        if (REPOSITORY_PATH.test(l)) found.push(`${name}:${i + 1}: ${l.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });
});
