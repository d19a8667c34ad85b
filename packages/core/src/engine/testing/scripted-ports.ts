import { join } from 'node:path';
import type { AgentDef } from '../../agents/agent-def.js';
import { NotFoundError } from '../../errors.js';
import { canonicalHash } from '../../lua/canonical-hash.js';
import { memoryModules } from '../../lua/testing/memory-modules.js';
import type { SignalSource } from '../../signals/signal-source.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import type { AskNotice } from '../../notify/ask-notice.js';
import type { EnginePorts, Notice, ShellResult } from '../ports.js';
import { ScriptedRunner } from './scripted-runner.js';

/** A signal source woken by hand; `onNext` lets a test act (e.g. answer) when the engine waits. */
export class ManualSignals implements SignalSource {
  private waiters: (() => void)[] = [];
  onNext: (() => void | Promise<void>) | null = null;
  next(): Promise<void> {
    const p = new Promise<void>((resolve) => this.waiters.push(resolve));
    const act = this.onNext;
    if (act) void Promise.resolve(act()).then(() => this.wake());
    return p;
  }
  wake() {
    for (const w of this.waiters.splice(0)) w();
  }
  async close() {
    this.wake();
  }
}

/** Everything a scripted engine touches, kept in reach so a test can look and change. */
export interface ScriptedWorld {
  ports: EnginePorts;
  store: Store;
  runner: ScriptedRunner;
  signals: ManualSignals;
  notices: Notice[];
  /** Notices to people (config{notify}), as the notifiers would have got them. */
  sent: { targets: string[]; notice: AskNotice }[];
  /** Workflow sources by path: change one to simulate an edited workflow. */
  workflows: Map<string, string>;
  /** Modules by their file under workflows/lib ("git/helpers.lua"): what require() loads. */
  modules: Map<string, string>;
  agents: Map<string, Partial<AgentDef>>;
  shellCommands: string[];
  /** How long each sh() takes (a stop or cancel cuts it short, as it kills a real one). */
  shellDelayMs: number;
  killed: number[];
  clock: { t: number };
}

/**
 * EnginePorts built by hand: a real SQLite store in `dir`, the scripted runner, agents and
 * workflows from memory, a fake shell and clock. Every name in `agents` is a known agent.
 */
export function scriptedWorld(
  dir: string,
  runner = new ScriptedRunner(),
  agentNames: string[] = ['coder', 'reviewer'],
): ScriptedWorld {
  const clock = { t: 1_700_000_000_000 };
  const store = openSqliteStore(join(dir, 'shop.db'), () => clock.t);
  const workflows = new Map<string, string>();
  const modules = new Map<string, string>();
  const agents = new Map<string, Partial<AgentDef>>(agentNames.map((n) => [n, {}]));
  const notices: Notice[] = [];
  const sent: { targets: string[]; notice: AskNotice }[] = [];
  const shellCommands: string[] = [];
  const killed: number[] = [];
  const signals = new ManualSignals();
  let sessions = 0;
  let tokens = 0;
  const ports: EnginePorts = {
    store,
    runner,
    loadAgent: (name) => {
      const def = agents.get(name);
      if (!def) throw new NotFoundError(`unknown agent "${name}" (found: ${[...agents.keys()].join(', ')})`);
      return { name, file: `agents/${name}.md`, instructions: `You are ${name}.`, allowedTools: [], ...def };
    },
    // The workflows and agents in memory, as the project's rule files: a change to one during a step holds the run.
    ruleFiles: {
      agentNames: () => [...agents.keys()].sort(),
      shown: (path) => path,
      look: (workflowPath) => {
        const look = new Map<string, string>();
        const source = workflows.get(workflowPath);
        if (source !== undefined) look.set(workflowPath, canonicalHash(source));
        for (const [rel, source] of modules) look.set(`workflows/lib/${rel}`, canonicalHash(source));
        for (const [name, def] of agents) look.set(`agents/${name}.md`, canonicalHash(def));
        return look;
      },
    },
    readWorkflow: (path) => {
      const source = workflows.get(path);
      if (source === undefined) throw new NotFoundError(`workflow file ${path} is gone`);
      return source;
    },
    modules: () => memoryModules(modules),
    openSignals: () => signals,
    shell: async (req, _cwd, signal): Promise<ShellResult> => {
      const cmd = req.cmd ?? req.argv!.join(' ');
      shellCommands.push(cmd);
      const n = shellCommands.length;
      if (world.shellDelayMs) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, world.shellDelayMs);
          signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
      }
      return signal.aborted
        ? { code: 143, stdout: '', stderr: 'killed' }
        : { code: 0, stdout: `ran ${cmd} #${n}`, stderr: '' };
    },
    clock: { now: () => clock.t },
    notifier: { notify: (n) => notices.push(n) },
    notices: { send: (targets, notice) => void sent.push({ targets, notice }), settle: async () => {} },
    newSessionId: () => `session-${++sessions}`,
    newToken: () => `token-${++tokens}`,
    // One process as far as owners go: a second driver here is a second owner, not the same one.
    self: { host: 'test-host', pid: process.pid, pidStart: 'test-start' },
    processAlive: () => true,
    processStart: () => null,
    killOrphan: async (pid) => void (pid && killed.push(pid)),
    leaseMs: 30_000,
    paths: { signalsDir: join(dir, 'signals'), runsDir: join(dir, 'runs'), binDir: null },
  };
  const world: ScriptedWorld = {
    ports,
    store,
    runner,
    signals,
    notices,
    sent,
    workflows,
    modules,
    agents,
    shellCommands,
    shellDelayMs: 0,
    killed,
    clock,
  };
  return world;
}
