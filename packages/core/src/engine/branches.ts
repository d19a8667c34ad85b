import type { LuaThread, ResumeWith } from '../lua/lua-vm.js';
import type { Run } from '../types.js';
import type { LiveTasks } from './live-tasks.js';
import type { EnginePorts } from './ports.js';
import type { ReplayLog } from './replay-log.js';
import { within, type ParallelGroup, type Strand } from './strands.js';
import type { Threads } from './threads.js';

interface BranchDeps {
  ports: EnginePorts;
  run: Run;
  token: string;
  log: ReplayLog;
  threads: Threads;
  tasks: LiveTasks;
  /** Waiting calls due a look for their answer; cancelled ones leave it. */
  toPoll: Set<string>;
  /** A dry replay: nothing written. */
  dry: boolean;
}

/**
 * parallel(): its branches as threads under the parallel's key, the parent resumed with
 * their results once all are done, or with the first error after the others are cancelled.
 */
export class Branches {
  constructor(private readonly d: BranchDeps) {}

  async start(parent: Strand, key: string, count: number, luaThreads: LuaThread[]): Promise<void> {
    const { threads, ports, run, token } = this.d;
    const group: ParallelGroup = { key, parent, branches: [], finished: 0 };
    luaThreads.forEach((t, i) => group.branches.push(threads.adopt(t, `${key}/${i + 1}`, group)));
    parent.state = 'parallel';
    parent.children = group;
    threads.ready.push(...group.branches);
    if (this.d.log.get(key)) return;
    await threads.whenLive(parent.path, () =>
      ports.store.startExecution(token, {
        runId: run.id,
        key,
        kind: 'parallel',
        agent: null,
        fingerprint: `parallel(${count} branches)`,
        sessionId: null,
        cwd: run.workspace,
        prompt: null,
        request: { branches: count },
        signalPath: null,
      }),
    );
  }

  /** A branch returned: when it was the last, the parent gets every branch's first value. */
  async done(s: Strand): Promise<void> {
    const g = s.group!;
    if (++g.finished < g.branches.length) return;
    await this.close(g, null);
    // The parent takes the values off the branch threads as it resumes; let go of them after.
    g.parent.releaseAfter.push(...g.branches.map((b) => b.lua));
    for (const b of g.branches) this.d.threads.byLua.delete(b.lua);
    this.resumeParent(g, { kind: 'branches', threads: g.branches.map((b) => b.lua) });
  }

  /** A branch raised: the others are cancelled and parallel() raises, naming the branch. */
  async failed(s: Strand, message: string): Promise<void> {
    const g = s.group!;
    const reason = `parallel: branch ${g.branches.indexOf(s) + 1} (${s.path}) failed: ${message}`;
    await this.cancel(
      g.branches.filter((b) => b !== s),
      `cancelled: ${reason}`,
    );
    await this.close(g, reason);
    for (const b of g.branches) this.d.threads.forget(b);
    this.resumeParent(g, { kind: 'error', message: reason });
  }

  /** Cancels threads (with the branches nested in them): their calls are stopped and marked failed. */
  async cancel(victims: Strand[], reason: string): Promise<void> {
    const { threads, tasks, toPoll } = this.d;
    const paths = victims.filter((v) => v.state !== 'done' && v.state !== 'failed').map((v) => v.path);
    if (!paths.length) return;
    threads.cancelledPaths.push(...paths);
    const inside = (path: string) => paths.some((p) => within(path, p));
    for (const t of [...threads.byLua.values()]) if (t !== threads.main && inside(t.path)) threads.forget(t);
    for (const [key] of threads.blocked) if (inside(key)) threads.blocked.delete(key);
    threads.deferred = threads.deferred.filter((d) => !inside(d.path));
    for (const key of toPoll) if (inside(key)) toPoll.delete(key);
    const keys = [...(await tasks.abort(paths)), ...tasks.dropWaiting(paths)];
    if (keys.length && !this.d.dry)
      await this.d.ports.store.cancelExecutions(this.d.token, this.d.run.id, keys, reason);
  }

  private resumeParent(g: ParallelGroup, input: ResumeWith) {
    g.parent.children = null;
    this.d.threads.makeReady(g.parent, input);
  }

  private async close(g: ParallelGroup, error: string | null) {
    const rec = this.d.log.get(g.key);
    if (rec && rec.status !== 'running') return;
    const { ports, run, token, threads } = this.d;
    await threads.whenLive(g.parent.path, () => ports.store.closeExecution(token, run.id, g.key, error));
  }
}
