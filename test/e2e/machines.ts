import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentRunning, isRunning, until, type Background, type Project } from './harness.js';
import { readSpans } from './spans.js';

/** One line of `shop watch --json`, with when the test read it. */
export interface WorkerLine {
  type: string;
  at?: string;
  run?: number;
  how?: string;
  [k: string]: unknown;
}

/**
 * A "machine" of a project: a `shop watch` with its own SHOP_HOME (its .shop folder: signal
 * files, agent logs) and its own SHOP_HOSTNAME, sharing the store (SHOP_DATABASE_URL) and the
 * checkout with the others. It can be killed -9 (the worker alone: its agents live on, as
 * after a crash of the process) or crashed whole (the worker and every agent it started, as
 * when the machine goes down), and started again as the same machine.
 */
export class Machine {
  readonly home: string;
  worker: Background | null = null;
  /** Every line each of its workers printed, oldest first, with the worker's generation. */
  readonly lines: (WorkerLine & { gen: number })[] = [];
  private gen = 0;
  private ready = false;

  /** `home`: its SHOP_HOME (default: a folder of its own; a SQLite store is shared by sharing it). */
  constructor(
    readonly p: Project,
    readonly name: string,
    private readonly env: NodeJS.ProcessEnv,
    home?: string,
  ) {
    this.home = home ?? join(p.dir, 'machines', name, '.shop');
    mkdirSync(this.home, { recursive: true });
  }

  /** Its host name: unique to this test process too, so killing "a machine" never reaches another test's. */
  get host(): string {
    return `machine-${this.name}.t${process.pid}`;
  }

  /** The environment its processes get: its own SHOP_HOME, host name and Claude Code folder (sessions live there). */
  get machineEnv(): NodeJS.ProcessEnv {
    return {
      ...this.env,
      SHOP_HOME: this.home,
      SHOP_HOSTNAME: this.host,
      CLAUDE_CONFIG_DIR: join(this.home, '..', 'claude'),
    };
  }

  /** Starts `shop watch --json` here and waits for it to say it is watching. */
  async start(): Promise<void> {
    const gen = ++this.gen;
    const bg = this.p.spawnShop(['watch', '--json'], { env: this.machineEnv });
    this.worker = bg;
    this.ready = false;
    let buffered = '';
    bg.child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const line of parts.filter(Boolean)) {
        try {
          this.lines.push({ ...(JSON.parse(line) as WorkerLine), gen });
        } catch {
          this.lines.push({ type: 'text', text: line, gen });
        }
      }
    });
    const ended = () => bg.child.exitCode !== null || bg.child.signalCode !== null;
    await until(
      `shop watch on ${this.name} to start`,
      () => /"type":"watching"/.test(bg.output()) || ended(),
      30_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; it said:\n${bg.output().slice(-2000)}`);
    });
    if (ended())
      throw new Error(
        `shop watch on ${this.name} ended (${bg.child.exitCode ?? bg.child.signalCode}):\n${bg.output()}`,
      );
    this.ready = true;
  }

  /** Started (it said it is watching) and not ended: a machine still starting is not killed again meanwhile. */
  get alive(): boolean {
    return !!this.worker && this.ready && this.worker.child.exitCode === null && this.worker.child.signalCode === null;
  }

  /** kill -9 of the worker process alone; its agents (process groups of their own) live on. */
  async kill9(): Promise<void> {
    const bg = this.worker!;
    bg.child.kill('SIGKILL');
    await bg.exited;
  }

  /** The agent processes this machine started that still run (from the stand-in's spans). */
  liveAgents(spansFile: string): { pid: number; run: string; call: string }[] {
    return readSpans(spansFile).filter((s) => s.host === this.host && s.end === null && agentRunning(s));
  }

  /**
   * The machine goes down: its worker, then every process started under it (found by its
   * SHOP_HOSTNAME in their environment, so an agent spawned a moment before is found too), kill -9.
   * A process killed -9 logs no end of its own: the end is logged here once it is gone.
   */
  async crash(spansFile: string): Promise<void> {
    this.worker!.child.kill('SIGKILL');
    await this.worker!.exited;
    const left = processesWithEnv(`SHOP_HOSTNAME=${this.host}`);
    for (const pid of left) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          /* not a group leader, or gone meanwhile */
        }
      }
    }
    for (const pid of left) await until(`process ${pid} to die`, () => !isRunning(pid), 10_000);
    for (const s of readSpans(spansFile).filter((x) => x.host === this.host && x.end === null && !agentRunning(x))) {
      appendFileSync(
        spansFile,
        JSON.stringify({
          event: 'end',
          pid: s.pid,
          shop_step: s.shop_step,
          host: this.host,
          at: Date.now(),
          code: 137,
        }) + '\n',
      );
    }
  }

  /** After a test: kill -9 whatever still runs under this machine (a worker, an agent, a command). */
  killEverything(): void {
    for (const pid of processesWithEnv(`SHOP_HOSTNAME=${this.host}`)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }

  /** SIGTERM: the worker lets its runs go (resumable) and exits. */
  async stop(ms = 20_000): Promise<number | null | 'still running'> {
    if (!this.alive) return null;
    const bg = this.worker!;
    bg.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'still running'>((res) => (timer = setTimeout(() => res('still running'), ms)));
    const r = await Promise.race([bg.exited, late]).finally(() => clearTimeout(timer));
    if (r === 'still running') {
      bg.child.kill('SIGKILL');
      await bg.exited;
    }
    return r;
  }
}

/** Pids of the running processes whose environment holds `entry` (NAME=value), never this one. */
function processesWithEnv(entry: string): number[] {
  const needle = Buffer.from(`\0${entry}\0`);
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${name}/environ`), Buffer.from('\0')]);
      if (env.includes(needle) && isRunning(Number(name))) found.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}
