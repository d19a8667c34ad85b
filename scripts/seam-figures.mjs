#!/usr/bin/env node
// The seam figures issue 25 is judged by, printed as JSON: distinct core modules each front end
// imports, import cycles among source files, source files over 300 lines, and fixed real-time
// sleeps in tests. Run from the repository root: `node scripts/seam-figures.mjs`.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';

const root = process.cwd();
const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
const isSource = (p) => /\.(ts|tsx)$/.test(p) && !p.endsWith('.d.ts');
const isTest = (p) => /\.test\.tsx?$/.test(p) || p.includes('/testing/') || p.startsWith(join(root, 'test'));
const sources = ['core', 'cli', 'tui', 'web']
  .flatMap((pkg) => walk(join(root, 'packages', pkg, 'src')))
  .filter(isSource);
const tests = [...sources, ...walk(join(root, 'test')).filter(isSource)].filter(isTest);
const product = sources.filter((p) => !isTest(p));

const specifiers = (text) => [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
// Imports that load a module at run time: `import type` and `export type … from` are left out.
const valueSpecifiers = (text) =>
  [...text.matchAll(/^\s*(import|export)\s+(type\s)?[^;]*?from\s*'([^']+)'/gms)].filter((m) => !m[2]).map((m) => m[3]);

const coreModules = {};
for (const fe of ['cli', 'tui', 'web']) {
  const used = new Set();
  for (const file of product.filter((p) => p.includes(`/packages/${fe}/`)))
    for (const s of specifiers(readFileSync(file, 'utf8'))) if (s.startsWith('@shop/core')) used.add(s);
  coreModules[fe] = used.size;
}

// Relative imports between product files; cycles are the strongly connected components of more than one file.
const resolveTo = (from, spec) => {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const c of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(c)) return c;
  return null;
};
const cyclesOf = (read) => {
  const graph = new Map(
    product.map((f) => [
      f,
      read(readFileSync(f, 'utf8'))
        .map((s) => resolveTo(f, s))
        .filter(Boolean),
    ]),
  );
  let index = 0;
  const stack = [],
    on = new Set(),
    idx = new Map(),
    low = new Map(),
    cycles = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const part = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        part.push(relative(root, w));
      } while (w !== v);
      if (part.length > 1) cycles.push(part.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return cycles;
};
const cycles = cyclesOf(specifiers);
const valueCycles = cyclesOf(valueSpecifiers);

const lines = (p) => readFileSync(p, 'utf8').split('\n').length;
const long = product.filter((p) => lines(p) > 300).map((p) => relative(root, p));
const sleepPattern = /setTimeout\(\s*\w+\s*,\s*\d+\s*\)|\bsleep\(\s*\d+\s*\)|delay\(\s*\d+\s*\)/g;
const sleeps = tests.reduce((n, p) => n + (readFileSync(p, 'utf8').match(sleepPattern) ?? []).length, 0);
const longLines = product.reduce(
  (n, p) =>
    n +
    readFileSync(p, 'utf8')
      .split('\n')
      .filter((l) => l.length > 160).length,
  0,
);

const figures = {
  coreModulesImported: coreModules,
  importCycles: cycles.length,
  filesInCycles: cycles.reduce((n, c) => n + c.length, 0),
  valueImportCycles: valueCycles.length,
  filesInValueCycles: valueCycles.reduce((n, c) => n + c.length, 0),
  filesOver300Lines: long.length,
  linesOver160: longLines,
  fixedSleepsInTests: sleeps,
};
console.log(JSON.stringify(process.argv.includes('--detail') ? { ...figures, valueCycles, long } : figures, null, 2));
