// A throw-away Shop project in a temp folder, driven in this process with in-process stub
// agents. Everything here comes from packages/core/dist: run `npm run build` first.
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun } from '../packages/core/dist/engine/drive-run.js';
import { nodePorts } from '../packages/core/dist/engine/node-ports.js';
import { ensureHome, findProject } from '../packages/core/dist/project/project.js';
import { withCheckoutPaths } from '../packages/core/dist/store/checkout-paths.js';
import { openSqliteStore } from '../packages/core/dist/store/sqlite/sqlite-store.js';

export const shopBin = fileURLToPath(new URL('../packages/cli/bin/shop', import.meta.url));
/** Shop's own better-sqlite3, for the WAL checkpoint before a store's size is read. */
const Database = createRequire(import.meta.url)('better-sqlite3');

/** `for i = 1, n do run("worker", "step " .. i) end`, then `tail` (e.g. a pause). */
export const loopWorkflow = (n, tail = '') =>
  `function workflow(prompt)\n  for i = 1, ${n} do run("worker", "step " .. i) end\n  ${tail}\n  return "done"\nend\n`;

const metrics = { costUsd: 0, numTurns: 1, durationMs: 0 };

/**
 * An in-process agent that reports at once, without a child process or a file: the report
 * is handed over in-process where the engine takes it (AgentOutcome.report), and also as the
 * `<promise>` tag of its final output, which every Shop accepts. `status` is what it reports.
 */
export function stubAgent(status = 'DONE', text = 'ok') {
  const report = status === 'NEEDS_HUMAN' ? { status, reason: text } : { status, summary: text };
  return {
    async invoke() {
      return { exitCode: 0, error: null, output: `<promise>${status}: ${text}</promise>`, report, metrics };
    },
  };
}

/**
 * The engine's ports on the project's own SQLite store, as `shop` opens it (its paths kept
 * relative to the checkout): P1–P7 measure Shop on SQLite, whatever SHOP_DATABASE_URL says
 * (P8, pg/, is the PostgreSQL comparison).
 */
export function sqlitePorts(project, opts) {
  ensureHome(project);
  return nodePorts(project, { ...opts, store: withCheckoutPaths(openSqliteStore(project.dbFile), project.root) });
}

/** A temp project with one agent (`worker`) and one workflow; its engine ports use `runner`. */
export function shopProject(prefix, workflow, runner, notifier = { notify() {} }) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'agents', 'worker.md'), '---\nmodel: sonnet\n---\nWork.\n');
  const workflowPath = join(dir, 'workflows', 'bench.lua');
  writeFileSync(workflowPath, workflow);
  const project = findProject(dir, {});
  const ports = sqlitePorts(project, { notifier, binDir: null, runner });
  return { dir, project, ports, workflowPath };
}

/** Records a new run of the project's workflow, owned by this process. */
export function startRun({ ports, workflowPath, dir }) {
  return createRun(ports, { spec: 'bench', workflowPath, prompt: '', workspace: dir, actor: 'bench' });
}

/** A store's size on disk once its WAL is folded in (`PRAGMA wal_checkpoint(TRUNCATE)`). */
export function checkpointedSize(dbFile) {
  const db = new Database(dbFile);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(dbFile).size;
}

/** The environment of a `shop` child process: this project, never a developer's SHOP_HOME. */
export const shopEnv = () => {
  const env = { ...process.env, SHOP_HOME: '' };
  delete env.SHOP_DATABASE_URL;
  return env;
};
