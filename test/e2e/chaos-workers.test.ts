import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runId, trail, type Project } from './harness.js';
import { Machine } from './machines.js';
import {
  crossMachineOrphans,
  killer,
  newPersonState,
  person,
  takeovers,
  untilEnded,
  type Answer,
  type Kill,
} from './chaos-actors.js';
import {
  ANSWERED_KEYS,
  EXPECTED,
  answerFor,
  callOverlaps,
  finishedRerun,
  said,
  setUpProject,
} from './chaos-scenario.js';
import { readSpans } from './spans.js';

/**
 * Three `shop watch` workers as three machines (a SHOP_HOME and a SHOP_HOSTNAME each) on one
 * PostgreSQL database; a fourth process starts the runs and answers every ask from the inbox;
 * meanwhile random machines running agents are killed -9 — the worker alone (its agents live
 * on; it comes back at once as the same machine) or the whole machine with its agents (back
 * after up to two leases, so another machine takes over by the lease). Every run must end as
 * it would uninterrupted, no answer lost, no finished agent run again, never two agent
 * processes on one call at once. The takeover time after each kill is printed.
 *
 * SHOP_CHAOS_RUNS=200 runs the long version (README, "Running on several machines");
 * SHOP_CHAOS_SEED repeats a run's random choices; SHOP_CHAOS_STORE=sqlite runs the same
 * scenario with the three workers on one SQLite store (one machine's disk);
 * SHOP_CHAOS_AGENT_MS makes each agent work longer (default 200 ms plus its paced events).
 */
const RUNS = Number(process.env.SHOP_CHAOS_RUNS) || 8;
const LEASE_S = 5;
const SQLITE = process.env.SHOP_CHAOS_STORE === 'sqlite';
/** The test fails when nothing has moved (no run ended, no answer, no agent started or ended) for this long, or at the cap. */
const STALL_MS = 60_000;
const CAP_MS = 120_000 + RUNS * 10_000;

type Cluster = { createDatabase(name: string): Promise<string>; stop(): Promise<void> };
let cluster: Cluster | null = null;
beforeAll(async () => {
  if (SQLITE) return;
  const { startCluster } = await import('../../scripts/pg-cluster.mjs');
  cluster = await startCluster({ maxConnections: 200 });
});
afterAll(async () => {
  await cluster?.stop();
});

describe(`chaos: three workers as three machines on one ${SQLITE ? 'SQLite' : 'PostgreSQL'} store, kill -9 mid-agent`, () => {
  const machines: Machine[] = [];
  afterEach(async () => {
    for (const m of machines.splice(0)) {
      if (m.alive) await m.stop();
      m.killEverything();
    }
  });

  it(
    `${RUNS} runs end as uninterrupted: 0 answers lost, 0 finished agents re-run, one agent process per call`,
    async () => {
      const seed = Number(process.env.SHOP_CHAOS_SEED) || Date.now() % 100_000;
      const p: Project = makeProject();
      setUpProject(p, Number(process.env.SHOP_CHAOS_AGENT_MS) || 200);
      const spansFile = join(p.dir, 'spans.jsonl');
      p.env.SHOP_STANDIN_SPANS = spansFile;
      p.env.SHOP_LEASE_SECONDS = String(LEASE_S);
      if (cluster) p.env.SHOP_DATABASE_URL = await cluster.createDatabase('chaos');
      const shared = SQLITE ? join(p.dir, '.shop') : undefined;
      for (const name of ['a', 'b', 'c']) machines.push(new Machine(p, name, p.env, shared));
      const desk = new Machine(p, 'd', p.env, shared);
      machines.push(desk);
      const workers = machines.filter((m) => m !== desk);
      await Promise.all(workers.map((m) => m.start()));

      // The person's machine starts every run: each waits at once for its first approval.
      const ids: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await p.shopAsync(['run', 'chaos', `task ${i}`], { env: desk.machineEnv });
        expect(r.code, said(r)).toBe(3);
        ids.push(runId(r.stdout));
      }
      // Until every run has ended — or nothing moved for STALL_MS (or the cap is reached): then
      // the test fails naming the runs still open, their calls and the workers' last words on them.
      let ended = false;
      let open: number[] = ids;
      const personState = newPersonState();
      // Progress: a run ended, an answer was given, an agent started or ended.
      const watchEnd = untilEnded(p, desk.machineEnv, ids, {
        stallMs: STALL_MS,
        capMs: CAP_MS,
        mark: (_rows, now) =>
          `${now.length}/${personState.answers.length}/${existsSync(spansFile) ? statSync(spansFile).size : 0}`,
      }).then((left) => ((open = left), (ended = true)));
      const [answers, kills] = await Promise.all([
        person(p, desk.machineEnv, () => ended, personState),
        killer(workers, spansFile, {
          seed,
          everyMs: [1500, 3500],
          leaseMs: LEASE_S * 1000,
          max: Math.max(6, Math.round(RUNS / 2)),
          done: () => ended,
          crashes: true,
        }),
        watchEnd,
      ]);
      const personLine = `the person: inbox had ${personState.lastInbox} asks; answering ${[...personState.answering].join(', ') || 'nothing'}; inbox errors: ${personState.inboxErrors.slice(-3).join(' | ') || 'none'}`;
      expect(
        open.length ? [personLine, ...stalled(p, open, workers, personState.answers)] : [],
        `seed ${seed}: runs still open`,
      ).toEqual([]);
      for (const m of workers) expect(await m.stop(), `machine ${m.name} stops on SIGTERM`).not.toBe('still running');

      report(seed, kills, workers, answers);
      for (const id of ids) {
        const { status, result } = p.status(id);
        expect({ seed, id, status, result }).toEqual({ seed, id, status: 'completed', result: EXPECTED });
      }

      // Every answer taken, once: each answering command succeeded, and each run's trail has one per ask.
      expect(
        answers
          .filter((a) => ![0, 3].includes(a.result.code ?? -1))
          .map((a) => `${a.handle} ${a.verb}: ${said(a.result)}`),
      ).toEqual([]);
      for (const id of ids) {
        const got = trail(p, id)
          .filter((e) => e.type === 'human_answered')
          .map((e) => e.key);
        expect({ seed, id, answered: got.sort() }).toEqual({ seed, id, answered: ANSWERED_KEYS });
      }
      // The asker heard its run's answer.
      const heard = p
        .invocations()
        .filter((i) => i.mode === 'print' && i.agent === 'asker' && i.prompt.includes('ANSWER-'));
      for (const id of ids)
        expect(
          heard.some((i) => i.run === String(id) && i.prompt.includes(answerFor(id))),
          `run ${id}'s asker heard its answer`,
        ).toBe(true);

      const spans = readSpans(spansFile);
      expect(callOverlaps(spans), `seed ${seed}`).toEqual([]);
      expect(
        crossMachineOrphans(takeovers(kills, workers), spans, (name) => workers.find((m) => m.name === name)!.host),
        `seed ${seed}`,
      ).toEqual([]);
      expect(finishedRerun(spans, ids), `seed ${seed}`).toEqual([]);
      expect(spans.filter((s) => s.end === null).map((s) => `${s.host}:${s.pid} run ${s.run} call ${s.call}`)).toEqual(
        [],
      );
      expect(kills.length, 'the chaos killed something').toBeGreaterThan(0);
    },
    CAP_MS + 180_000,
  );
});

/** What each run still open is doing: its status, its calls, and the workers' last lines about it. */
function stalled(p: Project, open: number[], workers: Machine[], answers: Answer[]): string[] {
  return open.map((id) => {
    const gave = answers
      .filter((a) => a.run === id)
      .map((a) => `${a.verb} ${a.handle} → ${said(a.result)}`)
      .join('; ');
    const recorded = trail(p, id)
      .filter((e) => e.type === 'human_answered')
      .map((e) => e.key)
      .join(',');
    const d = p.status(id);
    const calls = d.executions.map((e) => `${e.key}:${e.status}`).join(' ');
    const lines = workers
      .flatMap((m) =>
        m.lines
          .filter((l) => l.run === id)
          .map((l) => ({
            at: l.at ?? '',
            text: `${m.name}#${l.gen} ${l.at?.slice(11, 23)} ${l.type}${l.how ? ` ${l.how}` : ''}${l.outcome ? ` ${(l.outcome as { status: string }).status}` : ''}${l.message ? ` ${String(l.message)}` : ''}`,
          })),
      )
      .sort((a, b) => a.at.localeCompare(b.at))
      .slice(-8)
      .map((x) => x.text);
    return `run ${id} ${d.status} [${calls}] answers given: ${gave || 'none'}; recorded for: ${recorded || 'none'} — ${lines.join('; ')}`;
  });
}

/** Prints what happened: each kill, and how long until each run it interrupted was taken over, and by whom. */
function report(seed: number, kills: Kill[], machines: Machine[], answers: Answer[]) {
  const rows = takeovers(kills, machines);
  const lines = [`chaos (seed ${seed}): ${kills.length} kills, ${answers.length} answers`];
  for (const k of kills) {
    lines.push(
      `  ${new Date(k.at).toISOString().slice(11, 23)} kill -9 ${k.how === 'worker' ? 'worker' : 'machine'} ${k.machine}${k.how === 'machine' ? ` (down ${k.downMs} ms)` : ''}, watching again after ${k.backMs ?? '?'} ms: runs ${k.runs.join(', ') || '-'}`,
    );
    for (const r of rows.filter((x) => x.kill === k))
      lines.push(
        `      run ${r.run}: ${r.ms === null ? 'not taken over by a worker (driven by the answering process)' : `taken over in ${r.ms} ms by ${r.by}`}`,
      );
  }
  const ms = rows
    .map((r) => r.ms)
    .filter((x): x is number => x !== null)
    .sort((a, b) => a - b);
  if (ms.length)
    lines.push(
      `  takeover: min ${ms[0]} ms, median ${ms[Math.floor(ms.length / 2)]} ms, max ${ms[ms.length - 1]} ms (lease ${LEASE_S} s)`,
    );
  console.log(lines.join('\n'));
}
