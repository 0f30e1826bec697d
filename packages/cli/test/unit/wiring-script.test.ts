// scripts/wiring-script.ts: the build step that turns the CLI's wiring chunk into the classic
// script dist/rcs.js runs with its own code cache (start-up, bench/cli). What it must refuse is
// as important as what it converts: ESM syntax left over would only fail at the user's first run.
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { toWiringScript } from '../../../../scripts/wiring-script.js';

/** Runs a converted script with a loader that records what it was asked for. */
async function run(esm: string, modules: Record<string, unknown> = {}) {
  const asked: string[] = [];
  const fn = new Script(toWiringScript(esm)).runInThisContext() as (
    i: (s: string) => Promise<unknown>,
    r: (s: string) => unknown,
    url: string,
  ) => Promise<Record<string, unknown>>;
  const exports = await fn(
    async (s) => {
      asked.push(`import ${s}`);
      return modules[s] ?? {};
    },
    (s) => {
      asked.push(`require ${s}`);
      return modules[s] ?? {};
    },
    'file:///x/dist/wiring.js',
  );
  return { exports, asked };
}

describe('toWiringScript', () => {
  it('turns imports, import.meta.url and the export list into a function of its loaders', async () => {
    const { exports, asked } = await run(
      [
        '#!/usr/bin/env node',
        'import { a, b as c } from "./chunk-A.js";',
        'import d from "./chunk-B.js";',
        'import * as ns from "./chunk-C.js";',
        'import "./side-effect.js";',
        'import { join } from "node:path";',
        'const url = import.meta.url;',
        'const lazy = () => import("./chunk-D.js");',
        'function run() { return [a, c, d, ns.x, join("p", "q"), url]; }',
        'export { run, lazy as load };',
      ].join('\n'),
      {
        './chunk-A.js': { a: 1, b: 2 },
        './chunk-B.js': { default: 3 },
        './chunk-C.js': { x: 4 },
        'node:path': { join: (...p: string[]) => p.join('/') },
      },
    );
    expect((exports.run as () => unknown[])()).toEqual([
      1,
      2,
      3,
      4,
      'p/q',
      'file:///x/dist/wiring.js',
    ]);
    // Built-ins synchronously, the rest in the order ESM would link them.
    expect(asked).toEqual([
      'import ./chunk-A.js',
      'import ./chunk-B.js',
      'import ./chunk-C.js',
      'import ./side-effect.js',
      'require node:path',
    ]);
    await (exports.load as () => Promise<unknown>)();
    expect(asked.at(-1)).toBe('import ./chunk-D.js');
  });

  it('starts with a hash of its text, which changes with the text (the code cache key)', () => {
    const one = toWiringScript('const x = 1;\nexport { x };');
    const two = toWiringScript('const x = 2;\nexport { x };');
    expect(one).toMatch(/^\/\/ rcs-wiring [0-9a-f]{16}\n/);
    expect(one.split('\n')[0]).not.toBe(two.split('\n')[0]);
  });

  it.each([
    ['export default', 'export default function f() {}'],
    ['an exported declaration', 'export const x = 1;'],
    ['export *', 'export * from "./a.js";'],
    ['import.meta beyond .url', 'const d = import.meta.dirname;'],
  ])('refuses ESM syntax it cannot convert: %s', (_, esm) => {
    expect(() => toWiringScript(esm)).toThrow(/wiring chunk: ESM syntax left/);
  });

  it('refuses a chunk with two export lists', () => {
    expect(() => toWiringScript('const a = 1, b = 2;\nexport { a };\nexport { b };')).toThrow(
      /more than one export statement/,
    );
  });
});
