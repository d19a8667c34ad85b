import type { Project, Result } from './harness.js';
import type { Machine } from './machines.js';
import { answerFor } from './chaos-scenario.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator: a failing run can be told apart and repeated (SHOP_CHAOS_SEED). */
export function random(seed: number) {
  let s = seed >>> 0;
  return (lo: number, hi: number) => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return lo + (s % (hi - lo + 1));
  };
}

export interface Answer {
  run: number;
  key: string;
  handle: string;
  verb: 'approve' | 'answer';
  result: Result;
}

/**
 * The fourth process: a person at another machine who reads `shop inbox --json` and answers
 * every ask once — approves both pauses, answers the asker's question — with `shop approve` /
 * `shop answer` by handle, a few at a time, until `done()`.
 */
export async function person(p: Project, env: NodeJS.ProcessEnv, done: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  const asked = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  while (!done()) {
    const r = await p.shopAsync(['inbox', '--json'], { env });
    const rows = r.code === 0 ? (JSON.parse(r.stdout) as { run: number; key: string; handle: string; kind: string }[]) : [];
    for (const row of rows) {
      // By handle: were an answered ask asked again (an answer lost), it is answered again and
      // the run's trail shows two answers for the call, which the test refuses.
      const id = row.handle;
      if (asked.has(id) || inFlight.size >= 3) continue;
      asked.add(id);
      const verb = row.kind === 'pause' ? 'approve' : 'answer';
      const args = verb === 'approve' ? ['approve', row.handle] : ['answer', row.handle, answerFor(row.run)];
      const task: Promise<void> = p.shopAsync(args, { env }).then((result) => {
        answers.push({ run: row.run, key: row.key, handle: row.handle, verb, result });
        inFlight.delete(task);
      });
      inFlight.add(task);
    }
    await sleep(300);
  }
  await Promise.all(inFlight);
  return answers;
}

export interface Kill {
  machine: string;
  /** worker: kill -9 of the worker alone, started again at once; machine: worker and agents, back after `downMs`. */
  how: 'worker' | 'machine';
  at: number;
  downMs: number;
  /** The runs whose agents it was running. */
  runs: number[];
}

/**
 * Every `everyMs` (random within), kill -9 a machine that is running agents: the worker alone
 * (its agents live on; it comes back at once as the same machine) or the whole machine (back
 * after up to two leases, so another machine takes its runs over first). Up to `max` kills.
 */
export async function killer(machines: Machine[], spansFile: string, o: { seed: number; everyMs: [number, number]; leaseMs: number; max: number; done: () => boolean; crashes: boolean }): Promise<Kill[]> {
  const rnd = random(o.seed);
  const kills: Kill[] = [];
  const comebacks: Promise<void>[] = [];
  while (!o.done() && kills.length < o.max) {
    await sleep(rnd(o.everyMs[0], o.everyMs[1]));
    const busy = machines.filter((m) => m.alive && m.liveAgents(spansFile).length);
    if (!busy.length) continue;
    const m = busy[rnd(0, busy.length - 1)];
    const runs = [...new Set(m.liveAgents(spansFile).map((a) => Number(a.run)))];
    const how = o.crashes && rnd(0, 1) ? 'machine' : 'worker';
    const at = Date.now();
    if (how === 'worker') {
      await m.kill9();
      kills.push({ machine: m.name, how, at, downMs: 0, runs });
      await m.start();
    } else {
      await m.crash(spansFile);
      const downMs = rnd(0, 2 * o.leaseMs);
      kills.push({ machine: m.name, how, at, downMs, runs });
      comebacks.push(sleep(downMs).then(() => m.start()));
    }
  }
  await Promise.all(comebacks);
  return kills;
}

/** When (and by which machine) each run a kill interrupted was taken over: the first `took` line for it after the kill. */
export function takeovers(kills: Kill[], machines: Machine[]): { kill: Kill; run: number; ms: number | null; by: string | null }[] {
  return kills.flatMap((kill) => kill.runs.map((run) => {
    const took = machines
      .flatMap((m) => m.lines.filter((l) => l.type === 'took' && l.run === run && l.at && Date.parse(l.at) >= kill.at).map((l) => ({ by: m.name, at: Date.parse(l.at!) })))
      .sort((a, b) => a.at - b.at)[0];
    return { kill, run, ms: took ? took.at - kill.at : null, by: took?.by ?? null };
  }));
}
