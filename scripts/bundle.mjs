// Bundles the `shop` CLI (after tsc): one file to load instead of hundreds of modules, which is
// most of a command's start-up. Each command and the TUI stay separate chunks, loaded only by
// the command that needs them. Source maps point back to the TypeScript (SHOP_DEBUG=1 turns
// them on in stack traces). better-sqlite3 stays outside: it is a native module. pg
// (node-postgres) is bundled with the PostgreSQL store, loaded only when the store is PostgreSQL.
// esbuild's chunks are then gathered into a few by scripts/bundle-chunks.mjs (Node pays for each
// module file it loads).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkWorkflow } from '../packages/core/dist/lua/check-workflow.js';
import { PATCHED_FILES, patchFengariSource } from '../packages/core/dist/lua/fengari-patch.js';
import { sandboxBytecode } from '../packages/core/dist/lua/sandbox-chunk.js';
import { rechunk } from './bundle-chunks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'packages', 'cli', 'dist', 'bundle');
/** esbuild's output, before scripts/bundle-chunks.mjs gathers its chunks into outdir. */
const splitDir = join(root, 'packages', 'cli', 'dist', 'bundle-split');

/**
 * Shop's bounds inside fengari (packages/core/src/lua/fengari-patch.ts), applied to the copy
 * bundled here; the module that applies them at load time when core runs unbundled is left
 * out (it would load fengari from node_modules a second time).
 */
const fengariPatched = {
  name: 'fengari-patched',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]fengari[\\/]src[\\/]\w+\.js$/ }, (args) => {
      const file = `src/${basename(args.path)}`;
      if (!PATCHED_FILES.includes(file)) return undefined;
      return { contents: patchFengariSource(file, readFileSync(args.path, 'utf8')), loader: 'js' };
    });
    b.onLoad({ filter: /[\\/]lua[\\/]fengari-load-patched\.js$/ }, () => ({ contents: '', loader: 'js' }));
  },
};
/**
 * The front ends import core only through its entry (packages/core/src/index.ts), which names
 * every module it re-exports; bundled as written, every command would load all of core at
 * start-up. So each import of the entry is bundled as imports of the modules that export those
 * names, and a command still loads only the part of core it uses.
 */
const coreDist = join(root, 'packages', 'core', 'dist');
const entryModules = new Map(
  [
    ...readFileSync(join(coreDist, 'index.js'), 'utf8').matchAll(/export \{([^}]*)\} from ["']\.\/([^"']+)["'];/g),
  ].flatMap(([, names, mod]) => names.split(',').map((n) => [n.trim(), join(coreDist, mod)])),
);
const coreEntryByModule = {
  name: 'core-entry-by-module',
  setup(b) {
    b.onLoad({ filter: /[\\/]packages[\\/](cli|tui|web)[\\/]dist[\\/].*\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replace(/import\s*\{([^}]*)\}\s*from\s*'@shop\/core';/g, (_, names) => {
        const byModule = new Map();
        for (const spec of names
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)) {
          const module = entryModules.get(spec.split(/\s+as\s+/)[0]);
          if (!module) throw new Error(`${args.path}: @shop/core exports no ${spec}`);
          byModule.set(module, [...(byModule.get(module) ?? []), spec]);
        }
        return [...byModule]
          .map(([module, specs]) => `import { ${specs.join(', ')} } from ${JSON.stringify(module)};`)
          .join(' ');
      });
      return { contents, loader: 'js' };
    });
  },
};
/**
 * Three of Node's own modules are required, not imported: an ESM import of one makes Node build
 * an ESM facade of it, reading every export — node:fs's stream getters load the streams,
 * node:crypto's its WebCrypto — a few ms of every command's start-up (measured: shop list ~5%).
 * Each such import is bundled as a little module requiring it.
 */
const REQUIRED_BUILTINS = /^node:(crypto|child_process|fs)$/;
const builtinsRequired = {
  name: 'builtins-required',
  setup(b) {
    b.onResolve({ filter: REQUIRED_BUILTINS }, (args) =>
      // The little module's own require of it stays outside the bundle.
      args.namespace === 'builtin-required'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'builtin-required' },
    );
    // An ES module of its plain values (not its lazy getters, which would load what they guard):
    // each importer takes the names it uses, with no copy of the whole module per importer.
    b.onLoad({ filter: /.*/, namespace: 'builtin-required' }, (args) => {
      const mod = createRequire(import.meta.url)(args.path);
      const names = Object.entries(Object.getOwnPropertyDescriptors(mod))
        .filter(([name, d]) => !d.get && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
        .map(([name]) => name);
      return {
        contents: `const m = require(${JSON.stringify(args.path)});\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`,
        loader: 'js',
      };
    });
  },
};
/**
 * The bundle is CommonJS (scripts/bundle-chunks.mjs: bin/shop keeps V8's compiled code of it
 * between starts, which Node 20 can do only for CommonJS), which has no top-level await. Two
 * packages of the TUI use one; each is rewritten here, and the build fails if the text it
 * rewrites is not found (a new version of the package: look again).
 * - yoga-layout instantiates its WebAssembly at import: here it is instantiated by `ready()`,
 *   which the TUI awaits before Ink lays anything out (packages/tui/src/yoga-ready.ts).
 * - Ink's reconciler links to React DevTools when DEV=true: not in Shop (nor its dependencies).
 */
const TOP_LEVEL_AWAITS = [
  {
    file: /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/,
    from: 'const Yoga = wrapAssembly(await loadYoga());\nexport default Yoga;',
    to: [
      'let Yoga = null;',
      'export async function ready() { Yoga ??= wrapAssembly(await loadYoga()); }',
      'export default new Proxy({}, { get(_, key) {',
      "  if (Yoga === null) throw new Error('internal: yoga-layout used before its ready() (packages/tui/src/yoga-ready.ts)');",
      '  return Yoga[key];',
      '} });',
    ].join('\n'),
  },
  {
    file: /[\\/]node_modules[\\/]ink[\\/]build[\\/]reconciler\.js$/,
    from: /^if \(isDev\(\)\) \{\n {4}try \{\n {8}await import\('\.\/devtools\.js'\);[\s\S]*?\n\}\n/m,
    to: '',
  },
  {
    file: /[\\/]node_modules[\\/]ink[\\/]build[\\/]reconciler\.js$/,
    from: 'const packageJson = isDev()\n    ? await loadPackageJson()\n    : { name: undefined, version: undefined };',
    to: 'const packageJson = { name: undefined, version: undefined };',
  },
];
const noTopLevelAwait = {
  name: 'no-top-level-await',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](yoga-layout|ink)[\\/]/ }, (args) => {
      const edits = TOP_LEVEL_AWAITS.filter((e) => e.file.test(args.path));
      if (edits.length === 0) return undefined;
      let text = readFileSync(args.path, 'utf8');
      for (const { from, to } of edits) {
        const next = text.replace(from, to);
        if (next === text)
          throw new Error(`bundle: ${args.path} no longer reads as expected (${String(from).slice(0, 60)}…)`);
        text = next;
      }
      return { contents: text, loader: 'js' };
    });
  },
};
/**
 * Shop's own Lua (the sandbox's prelude, require's body) as bytecode, made by building one VM
 * here: a command's first VM loads it instead of parsing the text (packages/core/src/lua/sandbox-chunk.ts).
 */
checkWorkflow('function workflow() end', 'bundle.lua');
const sandboxChunks = sandboxBytecode();
if (Object.keys(sandboxChunks).length < 2) throw new Error("bundle: Shop's own Lua chunks were not made into bytecode");

rmSync(outdir, { recursive: true, force: true });
rmSync(splitDir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { shop: 'packages/cli/dist/main.js' },
  outdir: splitDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // pg-native: node-postgres' optional native binding, required only when asked for (never by Shop).
  external: ['better-sqlite3', 'pg-native'],
  // No require() banner: CommonJS dependencies bundled here call require() for Node's own
  // modules, which is the CommonJS module's own once scripts/bundle-chunks.mjs has made it one.
  logLevel: 'warning',
  metafile: true,
  // A string (a JSON text), which esbuild writes where it is used; an object would be a module of its own that every module initializes.
  define: { SHOP_SANDBOX_BYTECODE: JSON.stringify(JSON.stringify(sandboxChunks)) },
  plugins: [fengariPatched, coreEntryByModule, builtinsRequired, noTopLevelAwait],
});

/**
 * The packages the bundle still imports from outside (with the module that imports each), for
 * scripts/pack.mjs: the installed package must depend on every one of them, or say why not.
 */
const builtin = new Set(builtinModules);
const packageOf = (path) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');
const outside = {};
for (const [file, output] of Object.entries(metafile.outputs))
  for (const i of output.imports)
    if (i.external && !i.path.startsWith('node:') && !builtin.has(i.path.split('/')[0]))
      (outside[packageOf(i.path)] ??= []).push(file);
writeFileSync(join(outdir, '..', 'bundle-externals.json'), `${JSON.stringify(outside, null, 2)}\n`);

await rechunk(splitDir, outdir);
rmSync(splitDir, { recursive: true, force: true });

// What this build is, for bin/shop's compile cache: V8 checks a cached file's length, not its text.
const built = createHash('sha256');
for (const f of readdirSync(outdir, { recursive: true }).sort())
  if (f.endsWith('.cjs')) built.update(`${f}\0`).update(readFileSync(join(outdir, f)));
writeFileSync(join(outdir, 'build-id'), `${built.digest('hex').slice(0, 16)}\n`);
