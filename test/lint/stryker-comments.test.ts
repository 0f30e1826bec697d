/**
 * A `Stryker disable next-line` comment reaches the code on its next line only when that line is
 * code: just before a `}` it sits inside the block the brace closes, and Stryker applies it to
 * nothing (the mutant it names is tested anyway, and survives as if the mark were not there).
 * `npm run lint:regex` refuses that place, through eslint.config.mjs.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function problems(code: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}packages/export/src/probe.ts` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'stryker/next-line-reaches-code')
    .map((m) => m.line);
}

it('refuses a directive above `} catch {`, `} else {` or a closing brace, wherever it is', async () => {
  const code = [
    'export function a(): number {',
    '  try {',
    '    return JSON.parse("1");',
    '    // Stryker disable next-line BlockStatement: never applied',
    '  } catch {',
    '    return 0;',
    '  }',
    '}',
    'export function b(x: boolean): number {',
    '  if (x) {',
    '    return 1;',
    '    /* Stryker disable next-line BlockStatement: never applied */',
    '  } else {',
    '    return 2;',
    '  }',
    '}',
    'export const c = () => {',
    '  // Stryker disable next-line all: never applied',
    '};',
  ].join('\n');
  expect(await problems(code)).toEqual([4, 12, 18]);
});

it('lets a directive above the code it names pass, and other comments before a brace', async () => {
  const code = [
    'export function a(): number {',
    '  try {',
    '    // Stryker disable next-line StringLiteral: the text is not read',
    '    return JSON.parse("1");',
    '    // A note before the brace is no directive.',
    '  } catch {',
    '    return 0;',
    '  }',
    '}',
  ].join('\n');
  expect(await problems(code)).toEqual([]);
});
