import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { killOrphanGroup, processStart } from '../agents/process-group.js';
import { nodeReadPorts } from './node-read-ports.js';
import type { AgentRunner } from '../agents/agent-runner.js';
import type { AgentDef } from '../agents/agent-def.js';
import { NotFoundError } from '../errors.js';
import { projectModules } from '../lua/module-files.js';
import { ensureHome, type Project } from '../project/project.js';
import type { SignalOptions, SignalSource } from '../signals/signal-source.js';
import type { Store } from '../store/store.js';
import type { EnginePorts, Notifier, RuleFiles } from './ports.js';
import { runShell } from './shell.js';
import { nodeRetryTiming } from './agent-retry.js';
import { nodeClock } from './node-clock.js';
import { notifierNotices } from './notices.js';
import { nodeNoticeDeps } from '../notify/notice-deps.js';
import { isRunWorktree, removeCleanWorktree } from '../project/worktree.js';
import { readTranscript, transcriptPath, writeTranscript } from '../agents/claude-transcript.js';
import { sessionCap } from './session-keeper.js';

interface NodePortsOptions {
  notifier: Notifier;
  /** The folder holding the `shop` executable, put on agents' PATH for `shop report`. */
  binDir: string | null;
  runner?: AgentRunner;
  /** The project's store, opened by the caller (store/open-store.ts: SQLite or PostgreSQL). */
  store: Store;
  /** Given to agents when traces are exported (tracing/open-tracing.ts). */
  traceparent?: EnginePorts['traceparent'];
}

/** The real world: SQLite, the agent CLIs (Claude Code, Codex, Gemini CLI; SHOP_<CLI>_BIN), chokidar, child processes. */
export function nodePorts(project: Project, opts: NodePortsOptions): EnginePorts {
  ensureHome(project);
  const store = opts.store;
  // Loaded on the engine's first use (loadEngine): YAML agent definitions, Claude Code's runner
  // and chokidar cost a read-only command (shop list) a third of its start-up time.
  let engine: {
    runner: AgentRunner;
    loadAgent(name: string): AgentDef;
    openSignals(opts?: SignalOptions): SignalSource;
    ruleFiles: RuleFiles;
  } | null = null;
  const loadEngine = async () => {
    if (engine) return;
    const parts = await import('./node-engine-parts.js');
    engine ??= {
      runner: opts.runner ?? new parts.CliRunner((cli) => parts.cliBin(cli, process.env)),
      loadAgent: parts.cachedAgentLoader(project.root),
      openSignals: (opts) => new parts.SignalWatcher(project.signalsDir, opts),
      // One per process: a worker's runs share what is known of the files (hashed once each).
      ruleFiles: parts.nodeRuleFiles(project.root),
    };
  };
  const loaded = () => {
    if (!engine) throw new Error('internal: the engine was used before ports.loadEngine() loaded it');
    return engine;
  };
  return {
    ...nodeReadPorts(store),
    loadEngine,
    runner: opts.runner ?? { invoke: async (inv) => (await loadEngine(), loaded().runner.invoke(inv)) },
    loadAgent: (name) => loaded().loadAgent(name),
    readWorkflow: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        throw new NotFoundError(`workflow file ${path} is gone; restore it to resume this run`);
      }
    },
    modules: () => projectModules(project.root),
    openSignals: (opts) => loaded().openSignals(opts),
    ruleFiles: {
      agentNames: () => loaded().ruleFiles.agentNames(),
      shown: (path) => loaded().ruleFiles.shown(path),
      look: (path, reuseMs) => loaded().ruleFiles.look(path, reuseMs),
    },
    shell: runShell,
    clock: nodeClock(),
    retryTiming: nodeRetryTiming(),
    notifier: opts.notifier,
    notices: notifierNotices(store, nodeNoticeDeps()),
    newSessionId: () => randomUUID(),
    newToken: () => randomUUID(),
    processStart,
    killOrphan: killOrphanGroup,
    endWorkspace: (run, keep) => {
      if (!isRunWorktree(project.worktreesDir, run.workspace)) return null;
      if (keep) return `${run.workspace} (keep_worktree = true; shop prune removes it with the run)`;
      // git refuses to remove a worktree holding changes or untracked files: that work stays.
      return removeCleanWorktree(project.root, run.workspace) === null
        ? null
        : `${run.workspace} holds work not committed; look at it there (shop prune removes it with the run)`;
    },
    sessions:
      sessionCap(process.env) === 0
        ? undefined
        : {
            read: (cwd, id, max) => readTranscript(transcriptPath(process.env, cwd, id), max),
            write: (cwd, id, data) => writeTranscript(transcriptPath(process.env, cwd, id), data),
            cap: sessionCap(process.env),
          },
    traceparent: opts.traceparent,
    paths: { signalsDir: project.signalsDir, runsDir: project.runsDir, binDir: opts.binDir, home: project.home },
  };
}
