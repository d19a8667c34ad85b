import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The front ends (CLI, TUI, the web server) read and change runs only through core's operations (ShopOperations): none
 * opens the store, writes it, or holds the engine's ports — except its composition root,
 * which builds the operations once and hands them down. A store call in a command or a
 * screen would be a second copy of a rule (who may answer, how a run goes on) that core owns.
 */
const root = join(import.meta.dirname, '..');

/** The front ends' sources checked (non-test files). */
const FRONT_ENDS = ['packages/cli/src', 'packages/tui/src', 'packages/web/src'];

/** Where the store is opened and the operations built. */
const COMPOSITION_ROOTS = new Set([
  'packages/cli/src/context.ts',
  'packages/tui/src/launch.tsx',
  'packages/tui/src/deps.ts',
]);

/**
 * Files not moved onto the operations yet, each with why. Empty: every front-end file goes
 * through the operations. (Add one only with a comment, and say so in the issue.)
 */
const KNOWN_EXCEPTIONS = new Set<string>([]);

/**
 * What a source does with the store, line by line. Importing the store or the engine's ports is
 * refused by ESLint (no-restricted-imports in eslint.config.js, run by npm run lint); this test
 * catches what an import rule cannot see: a store reached through a value already in hand.
 */
const RULES: { what: string; re: RegExp }[] = [
  { what: 'opens the store (.store())', re: /\.store\(\)/ },
  { what: 'reaches the store through the ports (ports.store, .store.)', re: /\bports\.store\b|\.store\.\w+\(/ },
  { what: 'holds the whole EnginePorts', re: /\bEnginePorts\b/ },
];

const isTestCode = (path: string) => /\.test\.tsx?$/.test(path) || /[/\\](test-utils|tests|testing)[/\\]/.test(path);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|tsx)$/.test(f) && !f.endsWith('.d.ts') ? [path] : [];
  });
}

/** "line 12: imports the store (…)" for each rule a source breaks. */
export function storeTouches(source: string): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    for (const rule of RULES) if (rule.re.test(line)) found.push(`line ${i + 1}: ${rule.what}`);
  });
  return found;
}

describe('front ends use only core operations', () => {
  it('finds each way of touching the store in a source text', () => {
    const src = [
      'const store = await ctx.store();',
      'await ports.store.getRun(1);',
      'await this.ports.store.listRuns();',
      'function f(p: EnginePorts) {}',
      "import type { ShopOperations } from '@shop/core';",
      'await ops.run(1);',
    ].join('\n');
    expect(storeTouches(src)).toEqual([
      'line 1: opens the store (.store())',
      'line 2: reaches the store through the ports (ports.store, .store.)',
      'line 3: reaches the store through the ports (ports.store, .store.)',
      'line 4: holds the whole EnginePorts',
    ]);
  });

  it('no CLI or TUI file but their composition roots opens, imports or writes the store', () => {
    const touches: string[] = [];
    for (const dir of FRONT_ENDS) {
      for (const file of files(join(root, dir))) {
        const rel = relative(root, file);
        if (isTestCode(rel) || COMPOSITION_ROOTS.has(rel) || KNOWN_EXCEPTIONS.has(rel)) continue;
        for (const t of storeTouches(readFileSync(file, 'utf8'))) touches.push(`${rel} ${t}`);
      }
    }
    expect(touches, 'call a core operation (ctx.ops() in the CLI, deps.ops in the TUI) instead').toEqual([]);
  });

  it('the composition roots named still exist (a renamed root must not silently widen the rule)', () => {
    for (const file of [...COMPOSITION_ROOTS, ...KNOWN_EXCEPTIONS])
      expect(statSync(join(root, file)).isFile(), file).toBe(true);
  });
});
