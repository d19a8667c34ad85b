// The peers of the benchmark — LangGraph.js in bench/langgraph/, DBOS Transact in bench/dbos/ —
// each live in their own folder with its own package.json and lock, so `npm ci` of Shop stays
// lean: each is installed there on first use.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = (peer) => fileURLToPath(new URL(`./${peer}/`, import.meta.url));
const NAMES = { langgraph: 'the LangGraph peer', dbos: 'the DBOS Transact peer' };

/** Installs bench/<peer>'s dependencies (npm ci from its lock) unless they are there. */
export function ensurePeer(log, peer = 'langgraph') {
  const dir = folder(peer);
  // npm writes it last, so a node_modules without it is an install that did not finish.
  if (existsSync(join(dir, 'node_modules', '.package-lock.json'))) return;
  const verb = existsSync(join(dir, 'package-lock.json')) ? 'ci' : 'install';
  log(
    `installing ${NAMES[peer]}: npm ${verb} in bench/${peer} (first use only${peer === 'langgraph' ? '; better-sqlite3 may compile for a minute or two' : ''})`,
  );
  const r = spawnSync('npm', [verb, '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 2, 2] });
  if (r.status !== 0)
    throw new Error(
      `npm ${verb} in ${dir} failed (${r.error?.message ?? `exit ${r.status}`}); run it there by hand to see why`,
    );
}

/** A peer's packages and versions as installed, for the results. */
export function peerVersions(peer = 'langgraph') {
  const dir = folder(peer);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.fromEntries(
    Object.keys(pkg.dependencies).map((name) => {
      const installedPkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
      return [name, installedPkg.version];
    }),
  );
}
