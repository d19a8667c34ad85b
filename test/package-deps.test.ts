import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every package imported at run time is declared in the importing package's package.json
 * (a hoisted node_modules hides a missing one until someone installs the package alone).
 * Test files and test helpers may use the root's devDependencies too.
 */
const root = join(import.meta.dirname, '..');
const json = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as {
    name: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
const rootDev = Object.keys(json(join(root, 'package.json')).devDependencies ?? {});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory()
      ? files(path)
      : /\.(ts|tsx|mts|js|mjs)$/.test(f) && !f.endsWith('.d.ts')
        ? [path]
        : [];
  });
}

/** Bare specifiers of static imports, re-exports and dynamic imports, as package names. */
export function importedPackages(source: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) {
    for (const m of source.matchAll(re)) {
      const spec = m[1];
      if (spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0])) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  }
  return [...found];
}

/** Tests and what only tests load (test utilities, the store contract every adapter's test runs). */
const isTestCode = (path: string) => /\.test\.tsx?$/.test(path) || /[/\\](test-utils|testing|contract)[/\\]/.test(path);

describe('package dependencies', () => {
  it('finds the imports of a source text', () => {
    const src = `import { z } from 'zod';\nimport type { X } from "@shop/core/types";\nexport { y } from 'yaml/util';\nconst t = await import('ink');\nimport './side.js';\nimport 'chokidar';\nimport { a } from 'node:fs';\nimport { b } from 'path';`;
    expect(importedPackages(src).sort()).toEqual(['@shop/core', 'chokidar', 'ink', 'yaml', 'zod']);
  });

  for (const pkg of ['core', 'cli', 'tui']) {
    it(`packages/${pkg} declares every package its code imports`, () => {
      const manifest = json(join(root, 'packages', pkg, 'package.json'));
      const declared = new Set([...Object.keys(manifest.dependencies ?? {}), manifest.name]);
      const missing: string[] = [];
      for (const file of files(join(root, 'packages', pkg, 'src'))) {
        const allowed = isTestCode(file) ? new Set([...declared, ...rootDev]) : declared;
        for (const name of importedPackages(readFileSync(file, 'utf8'))) {
          if (!allowed.has(name)) missing.push(`${relative(root, file)} imports ${name}`);
        }
      }
      expect(missing, `add these to packages/${pkg}/package.json "dependencies"`).toEqual([]);
    });
  }

  it("the repository's own tests and scripts import only the root's devDependencies and the workspace packages", () => {
    const allowed = new Set([...rootDev, '@shop/core', '@shop/cli', '@shop/tui']);
    const missing = [...files(join(root, 'test')), ...files(join(root, 'scripts'))]
      .filter((file) => file !== import.meta.filename)
      .flatMap((file) =>
        importedPackages(readFileSync(file, 'utf8'))
          .filter((n) => !allowed.has(n))
          .map((n) => `${relative(root, file)} imports ${n}`),
      );
    expect(missing, 'add these to the root package.json "devDependencies"').toEqual([]);
  });
});
