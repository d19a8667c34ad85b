import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConflictError } from '../errors.js';
import type { AccessStore } from '../store/access-store.js';
import { PRIVATE_DIR, type Project } from './project.js';

/** The settings row naming the project a store belongs to. */
export const PROJECT_SETTING = 'project_id';
const ID = /^[A-Za-z0-9:_-]{8,80}$/;

/**
 * This project's identity: its repository's root commit ("git:<sha>", the same on every clone),
 * else a random id. Kept in the checkout's own `.shop/project-id` (not SHOP_HOME's: several
 * SHOP_HOMEs on one checkout are one project) — in SHOP_HOME only when the checkout cannot be
 * written — so git runs once per checkout, not per command, and a random id stays the same.
 */
export function projectIdentity(project: Pick<Project, 'root'> & Partial<Pick<Project, 'home'>>): string {
  // The checkout's own .shop first; SHOP_HOME's when the checkout cannot be written (read-only).
  const files = [
    join(project.root, '.shop', 'project-id'),
    ...(project.home ? [join(project.home, 'project-id')] : []),
  ];
  for (const file of files) {
    const kept = readKept(file);
    if (kept) return kept;
  }
  const id = rootCommit(project.root) ?? `id:${nodeCrypto().randomUUID()}`;
  for (const file of files) {
    try {
      mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
      writeFileSync(file, `${id}\n`, { flag: 'wx', mode: 0o644 });
      return id;
    } catch {
      // Another process wrote it first (its id stands), or this folder cannot be written: the next one.
      const kept = readKept(file);
      if (kept) return kept;
    }
  }
  return id;
}

/** Node's crypto and child_process are needed only when a checkout's id is made: required then, not at every command's start-up. */
const required = createRequire(import.meta.url);
const nodeCrypto = () => required('node:crypto') as typeof import('node:crypto');
const childProcess = () => required('node:child_process') as typeof import('node:child_process');

function readKept(file: string): string | null {
  try {
    const kept = readFileSync(file, 'utf8').trim();
    return ID.test(kept) ? kept : null;
  } catch {
    return null;
  }
}

/** The repository's first commit (the oldest root when histories were merged), or null outside git or before a commit. */
function rootCommit(root: string): string | null {
  try {
    const out = childProcess().execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    const roots = out
      .split('\n')
      .filter((l) => /^[0-9a-f]{40,64}$/.test(l))
      .sort();
    return roots.length ? `git:${roots[0]}` : null;
  } catch {
    return null;
  }
}

/**
 * Records the project's identity on a store at first use, and refuses a store that belongs to
 * another project — a worker must never drive another project's runs in this checkout.
 */
export async function checkProjectStore(
  store: Pick<AccessStore, 'getSetting' | 'initSetting'>,
  project: Pick<Project, 'root'> & Partial<Pick<Project, 'home'>>,
): Promise<string> {
  const mine = projectIdentity(project);
  // Read first: a read command should not take the store's write lock once it is recorded.
  const recorded = (await store.getSetting(PROJECT_SETTING)) ?? (await store.initSetting(PROJECT_SETTING, mine));
  if (recorded !== mine) {
    throw new ConflictError(
      `this store belongs to another project (${recorded}), not ${project.root} (${mine}); give this project its own store (SHOP_DATABASE_URL or shop init --database), or, for the same project without git, copy .shop/project-id from a machine already using it`,
    );
  }
  return mine;
}
