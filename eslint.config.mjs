// ESLint runs here for one thing only: a ReDoS analysis of every regular expression in the
// packages' sources (Biome stays the linter for everything else; TESTING.md). recheck
// (eslint-plugin-redos) decides by the pattern's automaton, not by a list of shapes, so it finds
// a quadratic pattern whatever its form: it flags both `\b[a-z][a-z0-9+.-]*:\/\/…` (the start
// moved over `a-a-a-…`) and `<title[^>]*>` (over `<title<title…`), which
// eslint-plugin-regexp's super-linear rules let pass. A pattern it cannot decide within the
// time is an error too, not a pass. The automaton checker only: its answer is exact and the same
// on every run, where recheck's fuzzer (its fallback for lookarounds) can answer differently on a
// loaded machine; a pattern it cannot decide is rewritten as code. `npm run lint:regex`; part of
// `npm test`.
import tsParser from '@typescript-eslint/parser';
import redos from 'eslint-plugin-redos';

export default [
  {
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/*/src/generated/**'],
    languageOptions: { parser: tsParser },
    plugins: { redos },
    rules: {
      'redos/no-vulnerable': [
        'error',
        { ignoreErrors: false, timeout: 60_000, cache: true, checker: 'automaton' },
      ],
    },
  },
];
