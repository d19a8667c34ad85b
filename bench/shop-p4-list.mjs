// P4 — `shop list` as a new process on a store of many runs, against the floor any such
// command has: a bare `node -e` that loads better-sqlite3, opens the same store and runs one
// trivial query. Shop only (LangGraph has no command line for its threads).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProject } from '../packages/core/dist/project/project.js';
import { timeProcess } from './stats.mjs';
import { checkpointedSize, shopBin, shopEnv, sqlitePorts } from './shop-project.mjs';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

/** Every 100th run waits at a pause; the others completed after one agent call. */
const WAITING_EVERY = 100;

/** Fills a new store with `runs` runs and one execution each, in one transaction. */
function fill(dbFile, runs) {
  const db = new Database(dbFile);
  const run =
    db.prepare(`INSERT INTO runs (spec, workflow_path, prompt, status, workspace, result, seed, created_at, updated_at, ended_at)
    VALUES ('feature', '/bench/workflows/feature.lua', @prompt, @status, '/bench', @result, 1, @t, @t, @ended)`);
  const call =
    db.prepare(`INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, delivered, session_id, prompt,
      request, result, waiting_for, awaiting, cost_usd, num_turns, ask, started_at, updated_at, finished_at)
    VALUES (@id, '1', 1, @kind, @agent, 'bench', @status, @delivered, NULL, @prompt, 'null', @result, @waitingFor, @awaiting, @cost, 3, @ask, @t, @t, @ended)`);
  db.transaction(() => {
    const t0 = Date.now() - runs * 60_000;
    for (let i = 0; i < runs; i++) {
      const t = t0 + i * 60_000;
      const waits = i % WAITING_EVERY === 0;
      const prompt = `task ${i}: add a login page`;
      const id = Number(
        run.run({
          prompt,
          status: waits ? 'waiting_human' : 'completed',
          result: waits ? null : '"done"',
          t,
          ended: waits ? null : t,
        }).lastInsertRowid,
      );
      call.run(
        waits
          ? {
              id,
              kind: 'pause',
              agent: '_checkpoint',
              status: 'waiting_human',
              delivered: null,
              prompt: null,
              result: null,
              waitingFor: 'Ship it?',
              awaiting: 'checkpoint',
              cost: null,
              ask: 1,
              t,
              ended: null,
            }
          : {
              id,
              kind: 'run',
              agent: 'coder',
              status: 'completed',
              delivered: 1,
              prompt,
              result: '{"status":"DONE","summary":"ok"}',
              waitingFor: null,
              awaiting: null,
              cost: 0.42,
              ask: 0,
              t,
              ended: t,
            },
      );
    }
  })();
  db.close();
}

/** The arguments of `shop list`: `--limit 50` when this Shop has the flag, else none. */
function listArgs() {
  const help = spawnSync(process.execPath, [shopBin, 'list', '--help'], { encoding: 'utf8' }).stdout ?? '';
  return help.includes('--limit') ? ['list', '--limit', '50'] : ['list'];
}

/** P4's store: a temp project with `runs` runs (schema made by Shop, rows by bulk insert). */
export function bigStore(runs) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p4-'));
  mkdirSync(join(dir, 'workflows'));
  const project = findProject(dir, {});
  // Shop makes the schema (SQLite's close is synchronous inside its promise).
  void sqlitePorts(project, { notifier: { notify() {} }, binDir: null }).store.close();
  fill(project.dbFile, runs);
  return { dir, dbFile: project.dbFile, runs, args: listArgs(), bytes: checkpointedSize(project.dbFile) };
}

/** P4 — `node packages/cli/bin/shop list [--limit 50]` in the project, stdout to /dev/null, wall-clock. */
export function listProcess({ dir, args }) {
  return timeProcess([process.execPath, shopBin, ...args], { cwd: dir, env: shopEnv() });
}

/** P4's reference: node + better-sqlite3 + open the store + one trivial query. */
export function bareQuery({ dbFile }) {
  const code = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    new D(${JSON.stringify(dbFile)}).prepare('SELECT id, status FROM runs ORDER BY id DESC LIMIT 1').get();`;
  return timeProcess([process.execPath, '-e', code]);
}
