import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Project } from './harness.js';

/** Runs `shop …` with an ESM load hook that lists every module file it reads; returns the bundled packages among them. */
export function packagesLoaded(
  p: Project,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; stdout: string; packages: Set<string> } {
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
  const r = p.shop(args, {
    env: { ...env, SHOP_TEST_LOADED: log, NODE_OPTIONS: `--import ${pathToFileURL(register).href}` },
  });
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    // Packages kept out of the bundle (better-sqlite3, pg) load from node_modules.
    const external = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (external && !url.includes('/dist/bundle/')) packages.add(external[1]!);
    if (!url.includes('/dist/bundle/')) continue;
    // esbuild names each bundled package's code: "// node_modules/<name>/…".
    for (const m of readFileSync(fileURLToPath(url), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm))
      packages.add(m[1]);
  }
  return { code: r.code, stdout: r.stdout, packages };
}
