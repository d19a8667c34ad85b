import type { Project, Result } from './harness.js';
import type { Machine } from './machines.js';
import { answerFor, said } from './chaos-scenario.js';
import type { Span } from './spans.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator: a failing run can be told apart and repeated (SHOP_CHAOS_SEED). */
export function random(seed: number) {
  let s = seed >>> 0;
  return (lo: number, hi: number) => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return lo + (s % (hi - lo + 1));
  };
}

/** What the person is up to, for a test that stalls to say. */
export interface PersonState {
  inboxErrors: string[];
  lastInbox: number;
  answering: Set<string>;
  answers: Answer[];
}
export const newPersonState = (): PersonState => ({ inboxErrors: [], lastInbox: 0, answering: new Set(), answers: [] });

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
export async function person(
  p: Project,
  env: NodeJS.ProcessEnv,
  done: () => boolean,
  seen: PersonState = newPersonState(),
): Promise<Answer[]> {
  const answers = seen.answers;
  const asked = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  while (!done()) {
    const r = await p.shopAsync(['inbox', '--json'], { env });
    if (r.code !== 0) seen.inboxErrors.push(said(r));
    const rows =
      r.code === 0 ? (JSON.parse(r.stdout) as { run: number; key: string; handle: string; kind: string }[]) : [];
    seen.lastInbox = rows.length;
    for (const row of rows) {
      // By handle: were an answered ask asked again (an answer lost), it is answered again and
      // the run's trail shows two answers for the call, which the test refuses.
      const id = row.handle;
      if (asked.has(id) || inFlight.size >= 3) continue;
      asked.add(id);
      const verb = row.kind === 'pause' ? 'approve' : 'answer';
      const args = verb === 'approve' ? ['approve', row.handle] : ['answer', row.handle, answerFor(row.run)];
      const what = `${args.slice(0, 2).join(' ')} (since ${new Date().toISOString().slice(11, 23)})`;
      seen.answering.add(what);
      const task: Promise<void> = p.shopAsync(args, { env }).then((result) => {
        answers.push({ run: row.run, key: row.key, handle: row.handle, verb, result });
        inFlight.delete(task);
        seen.answering.delete(what);
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
  /** When its worker was watching again (ms after the kill). */
  backMs?: number;
}

/**
 * Every `everyMs` (random within), kill -9 a machine that is running agents (or, with `idleToo`,
 * every other time any live machine): the worker alone
 * (its agents live on; it comes back at once as the same machine) or the whole machine (back
 * after up to two leases, so another machine takes its runs over first). Up to `max` kills.
 */
export async function killer(
  machines: Machine[],
  spansFile: string,
  o: {
    seed: number;
    everyMs: [number, number];
    leaseMs: number;
    max: number;
    done: () => boolean;
    crashes: boolean;
    idleToo?: boolean;
  },
): Promise<Kill[]> {
  const rnd = random(o.seed);
  const kills: Kill[] = [];
  const comebacks: Promise<void>[] = [];
  while (!o.done() && kills.length < o.max) {
    await sleep(rnd(o.everyMs[0], o.everyMs[1]));
    // Then the first moment a machine runs agents (not a pause-only lull).
    // idleToo: every other kill takes any live machine (one waking a run at its due time, or taking an event).
    const anyMachine = o.idleToo && rnd(0, 1) === 1;
    let busy: Machine[] = [];
    while (
      !o.done() &&
      !(busy = machines.filter((m) => m.alive && (anyMachine || m.liveAgents(spansFile).length))).length
    )
      await sleep(100);
    if (!busy.length) continue;
    const m = busy[rnd(0, busy.length - 1)];
    const runs = [...new Set(m.liveAgents(spansFile).map((a) => Number(a.run)))];
    const how = o.crashes && rnd(0, 1) ? 'machine' : 'worker';
    const at = Date.now();
    if (how === 'worker') {
      await m.kill9();
      const kill: Kill = { machine: m.name, how, at, downMs: 0, runs };
      kills.push(kill);
      await m.start();
      kill.backMs = Date.now() - at;
    } else {
      await m.crash(spansFile);
      const kill: Kill = { machine: m.name, how, at, downMs: rnd(0, 2 * o.leaseMs), runs };
      kills.push(kill);
      comebacks.push(
        sleep(kill.downMs).then(async () => {
          await m.start();
          kill.backMs = Date.now() - at;
        }),
      );
    }
  }
  await Promise.all(comebacks);
  return kills;
}

/** When (and by which machine) each run a kill interrupted was taken over: the first `took` line for it after the kill. */
export function takeovers(
  kills: Kill[],
  machines: Machine[],
): { kill: Kill; run: number; ms: number | null; by: string | null }[] {
  return kills.flatMap((kill) =>
    kill.runs.map((run) => {
      const took = machines
        .flatMap((m) =>
          m.lines
            .filter((l) => l.type === 'took' && l.run === run && l.at && Date.parse(l.at) >= kill.at)
            .map((l) => ({ by: m.name, at: Date.parse(l.at!) })),
        )
        .sort((a, b) => a.at - b.at)[0];
      return { kill, run, ms: took ? took.at - kill.at : null, by: took?.by ?? null };
    }),
  );
}

/**
 * Agent processes a killed worker left running that were still alive when another machine
 * took their run over. Here every "machine" shares one /proc, so the taker's search for
 * leftovers on the session finds and ends them; across a real network it could not, and two
 * agents would run on one call. So this must not happen at all (a worker killed alone comes
 * back at once and, seeing its own pid dead, takes its runs back before its lease runs out).
 */
export function crossMachineOrphans(
  rows: ReturnType<typeof takeovers>,
  spans: Span[],
  hostOf: (machine: string) => string,
): string[] {
  const found: string[] = [];
  for (const r of rows) {
    if (r.kill.how !== 'worker' || r.ms === null || r.by === r.kill.machine) continue;
    const tookAt = r.kill.at + r.ms;
    const host = hostOf(r.kill.machine);
    for (const s of spans) {
      if (s.host === host && s.run === String(r.run) && s.start <= r.kill.at && (s.end === null || s.end > tookAt)) {
        found.push(
          `run ${r.run}: ${r.by} took it ${r.ms} ms after worker ${r.kill.machine} was killed, while its agent ${s.pid} (call ${s.call}) still ran`,
        );
      }
    }
  }
  return found;
}

/**
 * Until every run in `ids` has ended — or nothing moved for `stallMs` (the `mark` of what the
 * runs and actors did stayed the same), or `capMs` passed: the runs still open (none when all ended).
 */
export async function untilEnded(
  p: Project,
  env: NodeJS.ProcessEnv,
  ids: number[],
  o: { stallMs: number; capMs: number; mark: (rows: { id: number; status: string }[], open: number[]) => string },
): Promise<number[]> {
  const cap = Date.now() + o.capMs;
  let progressAt = Date.now();
  let lastMark = '';
  let open = ids;
  while (open.length && Date.now() < cap && Date.now() - progressAt < o.stallMs) {
    await sleep(1000);
    const r = await p.shopAsync(['list', '--json'], { env });
    if (r.code !== 0) continue;
    const rows = JSON.parse(r.stdout) as { id: number; status: string }[];
    open = rows
      .filter((x) => ids.includes(x.id) && !['completed', 'failed', 'stuck'].includes(x.status))
      .map((x) => x.id);
    const mark = o.mark(rows, open);
    if (mark !== lastMark) [progressAt, lastMark] = [Date.now(), mark];
  }
  return open;
}
