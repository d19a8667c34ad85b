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

const FRONT_ENDS = ['packages/{cli,tui,web}/src/**/*.{ts,tsx}'];
/** Where the store is opened and the operations built, once. */
const COMPOSITION_ROOTS = [
  'packages/cli/src/context.ts',
  // What context.ts loads on first use (the engine's ports and operations; the reads alone).
  'packages/cli/src/engine-parts.ts',
  'packages/cli/src/read-parts.ts',
  'packages/tui/src/launch.tsx',
  'packages/tui/src/deps.ts',
];
const FRONT_END_TESTS = [
  'packages/{cli,tui,web}/src/**/*.test.{ts,tsx}',
  'packages/{cli,tui,web}/src/{test-utils,tests}/**/*.{ts,tsx}',
];

/** The no-restricted-imports pattern for a front end: nothing of core but its entries (`allowed`). */
function frontEndImports(allowed) {
  const entries = allowed.map((a) => a.replace('@shop/core/', '')).join('|');
  return {
    regex: `^@shop/core/(?!(${entries})$)|/core/(src|dist)/`,
    message: "Import from '@shop/core' (its entry names what front ends may use); to give them more, export it there.",
  };
}

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
    // Front ends import core through its curated entry only: '@shop/core', which names what
    // they may use (packages/core/src/index.ts) — never a file inside it, nor its sources by a
    // relative path. And they read and change runs only through core's operations
    // (ShopOperations): the store and the engine's ports are for a composition root alone.
    files: FRONT_ENDS,
    ignores: [...COMPOSITION_ROOTS, ...FRONT_END_TESTS],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            frontEndImports([]),
            {
              regex: '/(engine|read)-parts\\.js$',
              message: 'the composition root (context.ts) loads these; go through ctx.ops() or ctx.reads().',
            },
          ],
          paths: [
            {
              name: '@shop/core',
              importNames: ['nodePorts', 'nodeReadPorts', 'EnginePorts', 'Store', 'storeError'],
              message:
                "only a composition root opens the store or builds the engine's ports; go through ShopOperations.",
            },
          ],
        },
      ],
    },
  },
  {
    // A composition root opens the store ('@shop/core/store', loaded lazily) and builds the operations once.
    files: COMPOSITION_ROOTS,
    rules: { 'no-restricted-imports': ['error', { patterns: [frontEndImports(['@shop/core/store'])] }] },
  },
  {
    // The front ends' own tests may also use core's test helpers ('@shop/core/testing').
    files: FRONT_END_TESTS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [frontEndImports(['@shop/core/store', '@shop/core/testing'])] }],
    },
  },
);
