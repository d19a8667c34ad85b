import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { killGroupAndWait, killMarked } from './process-group.js';
import { startDirectly } from './start-directly.js';
import { AGENT_HOST_NAME, AGENT_HOST_SOURCE } from './agent-host-source.js';
import { containedCommand } from './containment.js';
import type { AgentExit, AgentStart, Contained, StartedAgent } from './agent-start.js';

/**
 * Starts agents from a small helper process — the agent host — instead of from the driver.
 *
 * Why: Linux starts a process by forking its parent, and a fork costs in proportion to the
 * parent's memory: ~4 ms of a 100 MB worker's event loop per agent (measured: 0.8 ms from a
 * 45 MB process, 12 ms from 370 MB), time every other run the worker drives waits for. The
 * host is a bare node process started once per driver; the driver only sends it a message.
 *
 * The host is also the agents' lifeline. An agent runs in a process group of its own, output in
 * files: when its driver is killed -9 (or its machine's worker dies alone), nothing else would
 * end it, and another machine that takes the run over would resume the same session while the
 * old agent still works — two agents on one call. The host's channel to the driver closes when
 * the driver dies, however it dies, and the host then ends every agent still running. If the
 * host itself ends while agents run, the driver stops those agents and reports them lost.
 *
 * Every process an agent starts ends with it (containment.ts): the agent runs in a PID namespace
 * of its own where the machine allows one, else its group and every process carrying its
 * SHOP_STEP marker are killed once it ends. A leftover of an agent step — a background `shop
 * approve`, a server it forgot — never outlives the step.
 *
 * Where the host cannot start (no memory for another process), agents are started directly,
 * without a lifeline — a later resume's orphan check still ends one left behind.
 */
export async function startAgent(req: AgentStart): Promise<StartedAgent> {
  const marker = randomBytes(12).toString('hex');
  const env: Record<string, string> = { ...req.env, SHOP_STEP: marker };
  let contained: Contained;
  try {
    contained = { ...req, ...containedCommand(req.file, req.args, req.cwd, env.PATH), env, marker };
  } catch (e) {
    return {
      pid: undefined,
      containment: 'process-group',
      done: Promise.resolve({ code: null, error: e as NodeJS.ErrnoException }),
    };
  }
  const host = hostForThisProcess();
  return host ? host.start(contained) : startDirectly(contained);
}

let shared: AgentHost | null = null;

function hostForThisProcess(): AgentHost | null {
  if (shared?.usable()) return shared;
  shared = AgentHost.launch();
  return shared;
}

interface Waiting {
  started(pid: number): void;
  marker: string;
  sweep: boolean;
  /** It could not be started; `logs`: its log files could not be made (an error of this process, thrown). */
  failed(e: NodeJS.ErrnoException, logs?: boolean): void;
  ended(exit: AgentExit): void;
  pid: number | null;
}

type HostMessage =
  | { type: 'started'; id: number; pid: number }
  | { type: 'ended'; id: number; code: number | null; signal: string | null }
  | { type: 'failed'; id: number; phase: 'logs' | 'spawn'; code: string | null; message: string };

class AgentHost {
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private gone = false;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: HostMessage) => this.heard(m));
    child.on('error', () => this.ended());
    child.on('exit', () => this.ended());
    // The host never keeps this process alive by itself: only agents being waited on do.
    child.unref();
    this.channel('unref');
  }

  static launch(): AgentHost | null {
    try {
      const child = spawn(process.execPath, ['-e', AGENT_HOST_SOURCE, AGENT_HOST_NAME, String(process.pid)], {
        detached: true,
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      return child.pid ? new AgentHost(child) : null;
    } catch {
      return null;
    }
  }

  usable(): boolean {
    return !this.gone && this.child.connected;
  }

  start(req: Contained): Promise<StartedAgent> {
    const id = this.nextId++;
    const { containment, marker } = req;
    const sweep = containment !== 'pid-namespace';
    return new Promise((resolveStart, rejectStart) => {
      let resolveDone!: (exit: AgentExit) => void;
      const done = new Promise<AgentExit>((r) => (resolveDone = r));
      const w: Waiting = {
        pid: null,
        marker,
        sweep,
        started: (pid) => {
          w.pid = pid;
          resolveStart({ pid, containment, done });
        },
        failed: (error, logs) => {
          this.forget(id);
          if (logs) return rejectStart(error);
          resolveStart({ pid: undefined, containment, done: Promise.resolve({ code: null, error }) });
        },
        ended: (exit) => {
          this.forget(id);
          resolveDone(exit);
        },
      };
      this.waiting.set(id, w);
      this.channel('ref');
      try {
        this.child.send({
          type: 'spawn',
          id,
          file: req.file,
          args: req.args,
          cwd: req.cwd,
          env: req.env,
          stdout: req.stdoutFile,
          stderr: req.stderrFile,
          marker,
          sweep,
        });
      } catch (e) {
        w.failed(e as NodeJS.ErrnoException);
      }
    });
  }

  private heard(m: HostMessage) {
    const w = this.waiting.get(m.id);
    if (!w) return;
    if (m.type === 'started') w.started(m.pid);
    else if (m.type === 'ended') w.ended({ code: m.code });
    else
      w.failed(
        Object.assign(new Error(m.message), { code: m.code ?? undefined }) as NodeJS.ErrnoException,
        m.phase === 'logs',
      );
  }

  /** The host ended (or could not be reached): its agents are stopped here, and reported lost. */
  private ended() {
    if (this.gone) return;
    this.gone = true;
    for (const w of [...this.waiting.values()]) {
      if (w.pid === null)
        w.failed(Object.assign(new Error('the agent host ended before it started the agent'), { code: 'EHOSTDOWN' }));
      else {
        const pid = w.pid;
        const stopped = killGroupAndWait(pid).then(() => w.sweep && killMarked(w.marker));
        void stopped
          .catch(() => undefined)
          .then(() =>
            w.ended({
              code: null,
              lost: `the process watching it (${AGENT_HOST_NAME}) ended unexpectedly; the agent (pid ${pid}) was stopped`,
            }),
          );
      }
    }
  }

  private forget(id: number) {
    this.waiting.delete(id);
    if (!this.waiting.size) this.channel('unref');
  }

  private channel(how: 'ref' | 'unref') {
    (this.child.channel as unknown as { ref?(): void; unref?(): void } | undefined)?.[how]?.();
  }
}
