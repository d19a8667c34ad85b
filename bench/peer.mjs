// The peer of the benchmark, LangGraph.js, lives in bench/langgraph/ with its own
// package.json and lock, so `npm ci` of Shop stays lean: it is installed there on first use.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./langgraph/', import.meta.url));
/** npm writes it last, so a node_modules without it is an install that did not finish. */
const installed = join(dir, 'node_modules', '.package-lock.json');

/** Installs bench/langgraph's dependencies (npm ci from its lock) unless they are there. */
export function ensurePeer(log) {
  if (existsSync(installed)) return;
  const verb = existsSync(join(dir, 'package-lock.json')) ? 'ci' : 'install';
  log(`installing the LangGraph peer: npm ${verb} in bench/langgraph (first use only; better-sqlite3 may compile for a minute or two)`);
  const r = spawnSync('npm', [verb, '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error(`npm ${verb} in ${dir} failed (${r.error?.message ?? `exit ${r.status}`}); run it there by hand to see why`);
}

/** The peer's packages and versions as installed, for the results. */
export function peerVersions() {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.fromEntries(Object.keys(pkg.dependencies).map((name) => {
    const installedPkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
    return [name, installedPkg.version];
  }));
}
