// npm run pack: the `shop` CLI as one tarball, shop-<version>.tgz in the repository root, that
// installs anywhere with `npm install -g shop-<version>.tgz` — no clone, no workspace links.
// Core, the TUI and the web are inside the bundle (scripts/bundle.mjs); the package depends only
// on what the bundle leaves outside. The files are laid out as in the repository where Shop looks
// for them by walking up from the bundle (shippedFile): workflows/, agents/, schema.sql,
// web/static/, bin/shop, and the stand-in claude that `shop demo` runs. Run after `npm run build`;
// `node scripts/pack.mjs <folder>` puts the tarball there instead (the package's e2e test does).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const destination = resolve(process.argv[2] ?? root);
const readJson = (...path) => JSON.parse(readFileSync(join(root, ...path), 'utf8'));

/**
 * What the installed package depends on: the bundle's outside imports (pg is bundled). Pinned to
 * the versions installed here, the ones the bundle was built and tested against.
 */
const DEPENDENCIES = ['better-sqlite3'];
/** Imports the bundle leaves outside that are never loaded in use, so not installed. */
const NOT_NEEDED = {
  'pg-native': "node-postgres' optional native binding, used only with NODE_PG_FORCE_NATIVE or pg.native",
};

const bundleDir = join(root, 'packages', 'cli', 'dist', 'bundle');
if (!existsSync(join(bundleDir, 'shop.cjs'))) throw new Error('no bundle: run npm run build first');
const outside = readJson('packages', 'cli', 'dist', 'bundle-externals.json');
for (const [name, by] of Object.entries(outside))
  if (!DEPENDENCIES.includes(name) && !(name in NOT_NEEDED))
    throw new Error(`the bundle imports ${name} (${by[0]}): add it to DEPENDENCIES or NOT_NEEDED in scripts/pack.mjs`);

const cli = readJson('packages', 'cli', 'package.json');
const monorepo = readJson('package.json');
const manifest = {
  name: 'shop',
  version: cli.version,
  description: monorepo.description,
  type: 'module',
  bin: { shop: 'bin/shop' },
  engines: monorepo.engines,
  dependencies: Object.fromEntries(DEPENDENCIES.map((d) => [d, readJson('node_modules', d, 'package.json').version])),
};

mkdirSync(destination, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), 'shop-pack-'));
try {
  const copy = (from, to = from, filter = () => true) =>
    cpSync(join(root, from), join(stage, to), { recursive: true, filter: (src) => filter(src) });
  copy('packages/cli/bin', 'bin');
  // Source maps would double the tarball for stack traces few will read (SHOP_DEBUG=1 in a clone has them).
  copy('packages/cli/dist/bundle', 'dist/bundle', (src) => !src.endsWith('.map'));
  copy('workflows');
  copy('agents');
  copy('schema.sql');
  copy('packages/web/static', 'web/static');
  mkdirSync(join(stage, 'scripts'));
  for (const f of ['claude-standin.mjs', 'standin-scenario.mjs', 'standin-presence.mjs']) copy(`scripts/${f}`);
  copy('README.md');
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const out = execFileSync('npm', ['pack', stage, '--pack-destination', destination, '--json', '--silent'], {
    encoding: 'utf8',
  });
  const [{ filename, size, entryCount }] = JSON.parse(out);
  console.log(`${filename}: ${(size / 1024).toFixed(0)} KiB, ${entryCount} files`);
  const rel = relative(process.cwd(), join(destination, filename));
  console.log(`install it anywhere: npm install -g ${rel.startsWith('..') ? join(destination, filename) : `./${rel}`}`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
