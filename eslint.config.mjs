// ESLint runs here for two things only. A ReDoS analysis of every regular expression in the
// packages' sources (Biome stays the linter for everything else; TESTING.md). recheck
// (eslint-plugin-redos) decides by the pattern's automaton, not by a list of shapes, so it finds
// a quadratic pattern whatever its form: it flags both `\b[a-z][a-z0-9+.-]*:\/\/…` (the start
// moved over `a-a-a-…`) and `<title[^>]*>` (over `<title<title…`), which
// eslint-plugin-regexp's super-linear rules let pass. A pattern it cannot decide within the
// time is an error too, not a pass. The automaton checker only: its answer is exact and the same
// on every run, where recheck's fuzzer (its fallback for lookarounds) can answer differently on a
// loaded machine; a pattern it cannot decide is rewritten as code. `npm run lint:regex`; part of
// `npm test`.
//
// And one rule of our own: a `Stryker disable next-line` comment on the line before a `}` sits
// inside the block that `}` closes, so Stryker attaches it to nothing and the mutant it names is
// tested anyway (a comment above `} catch {` does not reach the catch block).
import tsParser from '@typescript-eslint/parser';
import redos from 'eslint-plugin-redos';

const strykerComments = {
  rules: {
    'next-line-reaches-code': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const { sourceCode } = context;
        return {
          Program() {
            for (const comment of sourceCode.getAllComments()) {
              const next = sourceCode.lines[comment.loc.end.line] ?? '';
              if (comment.value.includes('Stryker disable next-line') && /^\s*\}/.test(next)) {
                context.report({
                  loc: comment.loc,
                  message:
                    'this Stryker directive is inside the block the next line closes, so Stryker applies it to nothing: put it above the mutated code, or rewrite the code so that no equivalent mutant is left',
                });
              }
            }
          },
        };
      },
    },
  },
};

export default [
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/generated/**'],
    languageOptions: { parser: tsParser },
    plugins: { redos, stryker: strykerComments },
    rules: {
      'redos/no-vulnerable': [
        'error',
        { ignoreErrors: false, timeout: 60_000, cache: true, checker: 'automaton' },
      ],
      'stryker/next-line-reaches-code': 'error',
    },
  },
];
