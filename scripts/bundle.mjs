// Bundles the `shop` CLI (after tsc): one file to load instead of hundreds of modules, which is
// most of a command's start-up. Each command and the TUI stay separate chunks, loaded only by
// the command that needs them. Source maps point back to the TypeScript (SHOP_DEBUG=1 turns
// them on in stack traces). better-sqlite3 stays outside: it is a native module;
// so does pg (node-postgres), loaded only when the store is PostgreSQL.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'packages', 'cli', 'dist', 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { shop: 'packages/cli/dist/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'pg', 'react-devtools-core'],
  // CommonJS dependencies bundled into ESM still call require() for Node's own modules.
  banner: { js: "import { createRequire as __shopCreateRequire } from 'node:module'; const require = __shopCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
