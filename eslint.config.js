// ESLint for the whole monorepo (`npm run lint`, run by .ci/run). One flat config: the
// recommended sets of ESLint and typescript-eslint everywhere, React's hook rules in the TUI,
// and `import-x/no-cycle` so an import circle fails CI instead of being found by a figure script.
// Rules turned off or tuned below each say why.
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/cli/bin/**', // the esbuild bundle
      '.shop/**',
      'test-output/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `catch {}` and `() => {}` are how this codebase says "nothing to do here" on purpose
      // (best-effort cleanup, a listener that only needs to exist); an empty block elsewhere
      // would still be caught by review, and a comment in each would only repeat the shape.
      'no-empty': ['error', { allowEmptyCatch: true }],
      '@typescript-eslint/no-empty-function': 'off',
      // Shop strips and escapes control characters on purpose (text from agents is data, shown
      // on terminals and pages): every control character in a regular expression here is meant.
      'no-control-regex': 'off',
      // A leading underscore marks a parameter or binding kept for its position or its type.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Tests walk JSON they read back (events, fixtures) by path; typing each shape would only
    // repeat what the assertion says. Product code keeps the rule.
    files: ['**/*.test.{ts,tsx}', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The web inbox's one script runs in the browser, as written (no build step).
    files: ['packages/web/static/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    // Import cycles: none allowed. TypeScript's resolver follows the `.js` specifiers NodeNext
    // wants to their `.ts` sources, and `@shop/core/*` to the core package. The rule follows
    // imports that load a module at run time; `import type` is erased by the build (the seam
    // figures script still counts cycles through types).
    files: ['packages/*/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle must parse each imported file to follow it: TypeScript's parser for .ts/.tsx.
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // TODO(issue 25): the CLI's command registry and its commands import each other (through
    // types today, which this rule does not follow); they are being rewritten as a data-only
    // table. Remove this override once that lands.
    files: ['packages/cli/src/**/*.{ts,tsx}'],
    rules: { 'import-x/no-cycle': 'off' },
  },
  {
    files: ['packages/tui/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The two rules of hooks only. The rest of react-hooks 7's recommended set judges components
    // for the React Compiler, which the TUI is not built with: its hooks keep a mutable cache and
    // the latest handler in refs on purpose (a key typed before the next frame must see the newest
    // state), which those rules forbid by design. (Running the compiler was also a fifth of ESLint's time.)
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // TODO(issue 25): switch `no-restricted-imports` on once `@shop/core` is the curated entry:
    // front ends then import only the bare `@shop/core`, never a file inside it.
    files: ['packages/{cli,tui,web}/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'off',
        {
          patterns: [
            { group: ['@shop/core/*'], message: "Import from '@shop/core' only; its entry names what front ends may use." },
          ],
        },
      ],
    },
  },
);
