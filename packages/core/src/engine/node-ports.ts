import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { loadAgent } from '../agents/agent-def.js';
import { ClaudeRunner } from '../agents/claude-runner.js';
import { isAlive, killGroupAndWait } from '../agents/process-group.js';
import type { AgentRunner } from '../agents/agent-runner.js';
import { NotFoundError } from '../errors.js';
import { ensureHome, type Project } from '../project/project.js';
import { SignalWatcher } from '../signals/signal-watcher.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { EnginePorts, Notifier } from './ports.js';

export interface NodePortsOptions {
  notifier: Notifier;
  /** The folder holding the `shop` executable, put on agents' PATH for `shop report`. */
  binDir: string | null;
  runner?: AgentRunner;
  store?: Store;
}

/** The real world: SQLite, Claude Code (or SHOP_CLAUDE_BIN), chokidar, child processes. */
export function nodePorts(project: Project, opts: NodePortsOptions): EnginePorts {
  ensureHome(project);
  return {
    store: opts.store ?? openSqliteStore(project.dbFile),
    runner: opts.runner ?? new ClaudeRunner(process.env.SHOP_CLAUDE_BIN || 'claude'),
    loadAgent: (name) => loadAgent(project.root, name),
    readWorkflow: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        throw new NotFoundError(`workflow file ${path} is gone; restore it to resume this run`);
      }
    },
    openSignals: () => new SignalWatcher(project.signalsDir),
    shell: async (cmd, cwd) => {
      const r = await execa(cmd, { shell: true, cwd, reject: false, stdin: 'ignore' });
      return { code: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    clock: { now: () => Date.now() },
    notifier: opts.notifier,
    newSessionId: () => randomUUID(),
    pid: process.pid,
    isAlive,
    killOrphan: (pid) => killGroupAndWait(pid),
    paths: { signalsDir: project.signalsDir, runsDir: project.runsDir, binDir: opts.binDir },
  };
}
