import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Project } from './harness.js';

/**
 * Runs `shop …` with an ESM load hook that lists every module file it reads (and the CommonJS ones
 * required, and Node's own modules loaded, at exit); returns the packages among them, Shop's own
 * modules (`core/engine/node-ports`) and Node's (`crypto`).
 */
export function packagesLoaded(
  p: Project,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): {
  code: number | null;
  stdout: string;
  stderr: string;
  packages: Set<string>;
  modules: Set<string>;
  builtins: Set<string>;
  /** The bundle's files read. */
  files: Set<string>;
} {
  const log = join(p.dir, `loaded-${args[0]}.txt`);
  writeFileSync(log, '');
  const hooks = join(p.dir, 'load-hooks.mjs');
  writeFileSync(
    hooks,
    "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(process.env.SHOP_TEST_LOADED, url + '\\n');\n  return next(url, context);\n}\n",
  );
  const register = join(p.dir, 'register-hooks.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  // A CommonJS package required (better-sqlite3) never reaches the ESM hook: listed as the process leaves.
  const required = join(p.dir, 'record-required.cjs');
  writeFileSync(
    required,
    "process.on('exit', () => require('node:fs').appendFileSync(process.env.SHOP_TEST_LOADED, [...Object.keys(require.cache).map((f) => require('node:url').pathToFileURL(f).href), ...process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice(13))].join('\\n') + '\\n'));\n",
  );
  const r = p.shop(args, {
    env: {
      ...env,
      SHOP_TEST_LOADED: log,
      NODE_OPTIONS: `--import ${pathToFileURL(register).href} --require ${required}`,
    },
  });
  const packages = new Set<string>();
  const modules = new Set<string>();
  const builtins = new Set<string>();
  const files = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    if (url.startsWith('builtin:')) {
      builtins.add(url.slice(8));
      continue;
    }
    // Packages kept out of the bundle (better-sqlite3, pg) load from node_modules.
    const external = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (external && !url.includes('/dist/bundle/')) packages.add(external[1]!);
    if (!url.includes('/dist/bundle/')) continue;
    files.add(url);
    // The build names each bundled package's code: "//! node_modules/<name>/…", and Shop's own modules "//! packages/…".
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const m of text.matchAll(/\/\/! node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) packages.add(m[1]);
    for (const m of text.matchAll(/\/\/! packages\/(\S+)\.js$/gm)) modules.add(m[1]!.replace('/dist/', '/'));
  }
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, packages, modules, builtins, files };
}
