import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { makeSignalsDir } from '../signals/signals-dir.js';

/** Where a Shop project's files live. */
export interface Project {
  root: string;
  /** Whether there is a project here: a `.shop/` or `workflows/` at or above cwd, or an existing SHOP_HOME. */
  found: boolean;
  home: string;
  dbFile: string;
  signalsDir: string;
  runsDir: string;
  worktreesDir: string;
  workflowsDir: string;
  /** The person's own workflows (~/.shop/workflows), found when the project has none of the name. */
  userWorkflowsDir: string;
}

/** The nearest folder at or above `cwd` holding `.shop/` or `workflows/`; else `cwd` itself. */
export function findProject(cwd: string, env: NodeJS.ProcessEnv = process.env): Project {
  let root = resolve(cwd);
  let found = false;
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.shop')) || existsSync(join(dir, 'workflows'))) {
      root = dir;
      found = true;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const home = env.SHOP_HOME ? resolve(env.SHOP_HOME) : join(root, '.shop');
  return {
    root,
    found: found || (Boolean(env.SHOP_HOME) && existsSync(home)),
    home,
    dbFile: join(home, 'shop.db'),
    signalsDir: join(home, 'signals'),
    runsDir: join(home, 'runs'),
    worktreesDir: join(home, 'worktrees'),
    workflowsDir: join(root, 'workflows'),
    userWorkflowsDir: join(env.HOME || homedir(), '.shop', 'workflows'),
  };
}

/**
 * Creates the .shop folders; the signals folder first, before anything watches it. Private
 * (0700): they hold the store, agents' logs and signals — prompts, answers, code. A .shop
 * made readable by others before is made private too.
 */
export function ensureHome(p: Project): void {
  makeSignalsDir(p.signalsDir);
  mkdirSync(p.runsDir, { recursive: true, mode: PRIVATE_DIR });
  try {
    if (statSync(p.home).mode & 0o077) chmodSync(p.home, PRIVATE_DIR);
  } catch {
    /* not ours to change */
  }
}

/** Folders Shop makes for itself: only their owner may look in. */
export const PRIVATE_DIR = 0o700;
