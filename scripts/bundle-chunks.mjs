// The second pass of the CLI's bundle (scripts/bundle.mjs): esbuild splits the code into a chunk
// for every set of lazily loaded parts that share it — ~100 small files, and Node loads an ES
// module file at a cost of its own (~0.4 ms each: resolved, read, compiled, linked), which was
// most of a read's start-up. Rollup re-chunks esbuild's output without changing any code
// (no tree-shaking; source maps carried through): the modules every command loads at start-up
// become one chunk, and Shop's own modules of a few parts loaded together become one chunk each.
// Packages' code (the Lua VM, zod, YAML, OpenTelemetry …), and Shop's that imports it, keeps its
// own chunks, loaded only by what needs it.
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { transform } from 'esbuild';
import { rollup } from 'rollup';

/**
 * The parts grouped, in order (a module in two groups goes to the first): each is the modules
 * the named lazily loaded parts (esbuild's entry chunks) import, directly or not.
 */
const GROUPS = {
  // Opening the store and the reads over it (shop list, status, log, workers, inbox).
  store: ['store-open', 'sqlite-store', 'read-parts'],
  reads: ['list', 'inbox', 'log', 'status', 'workers'],
  // Driving a run: the engine's ports and operations.
  engine: ['engine-parts', 'engine-operations', 'drive-run', 'drive-parents', 'node-engine-parts'],
};

/** Re-chunks the ES modules esbuild wrote to `from` (its entry `shop.js`, chunks in chunks/) into CommonJS ones in `to`. */
export async function rechunk(from, to) {
  const entry = `${from}/shop.js`;
  const input = { shop: entry };
  for (const f of (await readdir(`${from}/chunks`)).sort())
    if (f.endsWith('.js') && !f.startsWith('chunk-')) {
      // esbuild's name without its hash, unless two parts share the name (mcp: the command and the SDK's).
      const bare = `chunks/${f.replace(/-[A-Z0-9]{8}\.js$/, '')}`;
      input[bare in input ? `chunks/${f.replace(/\.js$/, '')}` : bare] = `${from}/chunks/${f}`;
    }
  const own = new Map();
  /** Shop's own code only (esbuild names each bundled package's part "// node_modules/…"). */
  const isOwn = (id) => {
    if (!own.has(id)) own.set(id, !/^\/\/ node_modules\//m.test(readFileSync(id, 'utf8')));
    return own.get(id);
  };
  const bundle = await rollup({
    input,
    // Node's modules and the packages left outside the bundle (better-sqlite3, pg …).
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    // esbuild's code as it is: its modules' side effects and order are its own.
    treeshake: false,
    preserveEntrySignatures: 'allow-extension',
    plugins: [withSourceMaps(), compacted()],
    onwarn(warning) {
      throw new Error(`rollup: ${warning.message}`);
    },
  });
  /** The modules `ids` import statically, and theirs (a lazily loaded part is not followed). */
  const closure = (ids, getModuleInfo, stop = new Set()) => {
    const seen = new Set();
    const walk = (id) => {
      if (seen.has(id) || stop.has(id)) return;
      seen.add(id);
      for (const dep of getModuleInfo(id)?.importedIds ?? []) walk(dep);
    };
    for (const id of ids) walk(id);
    return seen;
  };
  /**
   * Shop's own code that imports no package's (the bundle's or one left outside, as pg), directly
   * or not: grouped, it never makes a command that loads the group load a package it did not before.
   */
  const lightness = new Map();
  const light = (id, getModuleInfo) => {
    if (!lightness.has(id))
      lightness.set(
        id,
        [...closure([id], getModuleInfo)].every((m) =>
          getModuleInfo(m)?.isExternal ? m.startsWith('node:') : isOwn(m),
        ),
      );
    return lightness.get(id);
  };
  let groups = null;
  await bundle.write({
    dir: to,
    // CommonJS, so that bin/shop can keep V8's compiled code between starts (Node 20 has no way
    // to for ES modules); a lazily loaded part is required when first used, as it was imported.
    format: 'cjs',
    exports: 'named',
    dynamicImportInCjs: false,
    entryFileNames: '[name].cjs',
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    sourcemap: true,
    manualChunks(id, { getModuleInfo }) {
      if (!groups) {
        const startup = closure([entry], getModuleInfo);
        startup.delete(entry);
        groups = [['startup', startup]];
        for (const [name, parts] of Object.entries(GROUPS)) {
          const ids = parts.map((p) => input[`chunks/${p}`]).filter(Boolean);
          if (ids.length !== parts.length)
            throw new Error(`bundle: a part of group ${name} is gone: ${parts.join(', ')}`);
          // The parts' own entry modules stay entries; what they import is grouped.
          const members = closure(ids, getModuleInfo, startup);
          for (const e of ids) members.delete(e);
          groups.push([name, members]);
        }
      }
      for (const [name, members] of groups)
        if (members.has(id) && (name === 'startup' || light(id, getModuleInfo))) return name;
      return undefined;
    },
  });
  await bundle.close();
}

/** Each module's own source map (esbuild's, linked beside it), so the output's maps reach the TypeScript. */
function withSourceMaps() {
  return {
    name: 'with-source-maps',
    load(id) {
      const code = readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
      const mapFile = `${id}.map`;
      return { code, map: existsSync(mapFile) ? readFileSync(mapFile, 'utf8') : null };
    },
  };
}

/**
 * Each chunk written without the whitespace and comments V8 must read past, in ASCII alone (a
 * file with one other character is decoded and held as two bytes a character): a command reads
 * and decodes less. Names are kept (no mangling), license comments too; the maps go through.
 * esbuild's line naming each module ("// node_modules/zod/…", "// packages/core/dist/…") stays,
 * as "//! …", to tell what a file holds. A 1-call resume took 0.91–0.93× the time (farm-bench).
 */
function compacted() {
  return {
    name: 'compacted',
    async renderChunk(code, chunk) {
      const named = code.replace(/^\/\/ (node_modules|packages)\//gm, '//! $1/');
      const out = await transform(named, {
        minifyWhitespace: true,
        minifySyntax: true,
        charset: 'ascii',
        sourcemap: 'external',
        sourcefile: chunk.fileName,
      });
      return { code: out.code, map: out.map };
    },
  };
}
