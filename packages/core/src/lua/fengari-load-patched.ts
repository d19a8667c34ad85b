import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PATCHED_FILES, patchFengariSource } from './fengari-patch.js';

/**
 * Imported for its effect, before fengari: when core runs from its sources (vitest) or from
 * dist (shop's tests of core, the benchmarks), Node loads fengari's CommonJS files through
 * Module._extensions; the few that Shop patches (fengari-patch.ts) are compiled from the
 * patched text instead. The bundled CLI patches them when it is built and drops this module
 * (scripts/bundle.mjs). fengari's own files are only read, never rewritten on disk.
 */
type Loader = (this: unknown, module: { _compile(source: string, filename: string): void }, filename: string) => void;

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('fengari/package.json'));
const files = new Map(PATCHED_FILES.map((f) => [join(root, f), f]));
const extensions = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;

// Already loaded (a second module graph in the same process, as vitest makes): as it is.
if (![...files.keys()].some((f) => require.cache[f])) {
  const plain = extensions['.js'];
  extensions['.js'] = function (module, filename) {
    const file = files.get(filename);
    if (file === undefined) return plain.call(this, module, filename);
    files.delete(filename);
    // Every patched file is in: the loader is Node's own again.
    if (files.size === 0) extensions['.js'] = plain;
    module._compile(patchFengariSource(file, readFileSync(filename, 'utf8')), filename);
  };
}
