import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runId, trail, type Project, type Result } from './harness.js';
import { Machine } from './machines.js';
import { killer, newPersonState, person, random, untilEnded } from './chaos-actors.js';
import { callOverlaps, finishedRerun, said, setUpProject } from './chaos-scenario.js';
import { readSpans } from './spans.js';

/**
 * The chaos test of the waits: three `shop watch` workers as three machines on one PostgreSQL
 * database, runs that sleep, wait for two events each, call a child run that sleeps and asks,
 * and ask a person — while a sender process sends each run's events at random moments (often
 * before the run reaches its wait; some twice under the same --id) and random machines are
 * killed -9, busy or idle. Every run must end as uninterrupted: no event lost or taken twice,
 * one child per call, no timer fired twice or before its due time, no ask answered twice.
 *
 * SHOP_CHAOS_RUNS, SHOP_CHAOS_SEED as in chaos-workers.test.ts.
 */
const RUNS = Number(process.env.SHOP_CHAOS_RUNS) || 6;
const LEASE_S = 5;
const STALL_MS = 60_000;
const CAP_MS = 120_000 + RUNS * 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A run: asked to start, sleeps 2 s (now() on both sides), takes its two events in order, plans, calls a child. */
const FLOW = `function workflow(prompt)
  local key = "run-" .. context().run_id
  local go = pause("Start " .. prompt .. "?")
  local t0 = now()
  sleep(2)
  local t1 = now()
  local a = wait_event("ci.done", { key = key })
  local plan = run("planner")
  local b = wait_event("ci.done", { key = key })
  local child = call_workflow("child", prompt)
  return table.concat({ tostring(go.continue), tostring(t1 - t0 >= 2), a.data.seq, plan.summary, b.data.seq, child.status, child.result }, "|")
end
`;
/** The child: sleeps, asks, codes. */
const CHILD = `function workflow(prompt)
  local t0 = now()
  sleep(1)
  local ok = pause("Child of " .. prompt .. " ok?")
  local w = run("coder")
  return tostring(now() - t0 >= 1) .. "-" .. tostring(ok.continue) .. "-" .. w.summary
end
`;
const EXPECTED = 'true|true|1|plan|2|completed|true-true-code';
/** The agent calls of a parent (planner at key 6) and of a child (coder at key 4). */
const PARENT_AGENTS = { '6': { agent: 'planner' } };
const CHILD_AGENTS = { '4': { agent: 'coder' } };

type Cluster = { createDatabase(name: string): Promise<string>; stop(): Promise<void> };
let cluster: Cluster | null = null;
beforeAll(async () => {
  const { startCluster } = await import('../../scripts/pg-cluster.mjs');
  cluster = await startCluster({ maxConnections: 200 });
});
afterAll(async () => {
  await cluster?.stop();
});

interface Sent {
  run: number;
  seq: number;
  id: string;
  results: Result[];
}

/** The outside world: each run's two events, at random moments from its start (seq 2 after seq 1), a third of them sent twice under the same id. */
async function sender(
  p: Project,
  env: NodeJS.ProcessEnv,
  seed: number,
  runs: () => number[],
  done: () => boolean,
): Promise<Sent[]> {
  const rnd = random(seed + 1);
  const sent: Sent[] = [];
  const started = new Set<number>();
  const tasks: Promise<void>[] = [];
  const send = async (run: number, seq: number) => {
    const s: Sent = { run, seq, id: `run-${run}-${seq}`, results: [] };
    sent.push(s);
    const args = ['event', 'send', 'ci.done', '--key', `run-${run}`, '--data', JSON.stringify({ seq }), '--id', s.id];
    const copies = rnd(0, 2) === 0 ? 2 : 1;
    s.results.push(...(await Promise.all(Array.from({ length: copies }, () => p.shopAsync(args, { env })))));
  };
  while (!done()) {
    for (const run of runs().filter((r) => !started.has(r))) {
      started.add(run);
      const [first, second] = [rnd(0, 8000), rnd(100, 4000)];
      tasks.push(
        sleep(first)
          .then(() => send(run, 1))
          .then(() => sleep(second))
          .then(() => send(run, 2)),
      );
    }
    await sleep(200);
  }
  await Promise.all(tasks);
  return sent;
}

describe('chaos: sleeps, events and child runs on three workers as three machines on PostgreSQL, kill -9 busy or idle', () => {
  const machines: Machine[] = [];
  afterEach(async () => {
    for (const m of machines.splice(0)) {
      if (m.alive) await m.stop();
      m.killEverything();
    }
  });

  it(
    `${RUNS} runs end as uninterrupted: 0 events lost or taken twice, 0 duplicate children, 0 timers fired twice or early`,
    async () => {
      const seed = Number(process.env.SHOP_CHAOS_SEED) || Date.now() % 100_000;
      const p: Project = makeProject();
      setUpProject(p, 200);
      p.write('workflows/flow.lua', FLOW);
      p.write('workflows/child.lua', CHILD);
      const spansFile = join(p.dir, 'spans.jsonl');
      p.env.SHOP_STANDIN_SPANS = spansFile;
      p.env.SHOP_LEASE_SECONDS = String(LEASE_S);
      p.env.SHOP_DATABASE_URL = await cluster!.createDatabase('chaos_waits');
      for (const name of ['a', 'b', 'c']) machines.push(new Machine(p, name, p.env));
      const desk = new Machine(p, 'd', p.env);
      machines.push(desk);
      const workers = machines.filter((m) => m !== desk);
      await Promise.all(workers.map((m) => m.start()));

      let ended = false;
      const ids: number[] = [];
      const personState = newPersonState();
      const sending = sender(
        p,
        desk.machineEnv,
        seed,
        () => ids,
        () => ended,
      );
      for (let i = 0; i < RUNS; i++) {
        const r = await p.shopAsync(['run', 'flow', `task ${i}`], { env: desk.machineEnv });
        expect(r.code, said(r)).toBe(3);
        ids.push(runId(r.stdout));
      }
      let open: number[] = ids;
      // Progress: a run ended or moved on, an answer was given.
      const watchEnd = untilEnded(p, desk.machineEnv, ids, {
        stallMs: STALL_MS,
        capMs: CAP_MS,
        mark: (rows, now) => `${now.length}/${personState.answers.length}/${rows.map((x) => x.status).join()}`,
      }).then((left) => ((open = left), (ended = true)));
      const [answers, kills, sent] = await Promise.all([
        person(p, desk.machineEnv, () => ended, personState),
        killer(workers, spansFile, {
          seed,
          everyMs: [1500, 3500],
          leaseMs: LEASE_S * 1000,
          max: Math.max(6, RUNS),
          done: () => ended,
          crashes: true,
          idleToo: true,
        }),
        sending,
        watchEnd,
      ]);
      const statusOf = (id: number) =>
        `run ${id} ${p.status(id).status}: ${p
          .status(id)
          .executions.map((e) => `${e.key}:${e.status}`)
          .join(' ')}`;
      expect(open.map(statusOf), `seed ${seed}: runs still open`).toEqual([]);
      for (const m of workers) expect(await m.stop(), `machine ${m.name} stops on SIGTERM`).not.toBe('still running');
      console.log(
        `chaos waits (seed ${seed}): ${kills.length} kills (${kills.map((k) => `${k.how} ${k.machine}`).join(', ')}), ${answers.length} answers, ${sent.length} events`,
      );

      for (const id of ids)
        expect({ seed, id, status: p.status(id).status, result: p.status(id).result }).toEqual({
          seed,
          id,
          status: 'completed',
          result: EXPECTED,
        });

      // Events: every send said ok (a repeated id too); each run took its own two, in order, each once; none left untaken.
      expect(sent.flatMap((s) => s.results.filter((r) => r.code !== 0).map((r) => `${s.id}: ${said(r)}`))).toEqual([]);
      const listed = JSON.parse(p.shop(['event', 'list', '--name', 'ci.done', '--json']).stdout) as {
        id: number;
        key: string;
      }[];
      expect(listed.length, 'one event per --id').toBe(2 * RUNS);
      const taken: number[] = [];
      for (const id of ids) {
        const waits = p
          .status(id)
          .executions.filter((e) => e.kind === 'wait_event')
          .sort((a, b) => Number(a.key) - Number(b.key));
        const got = waits.map((e) => e.result as { id: number; key: string; data: { seq: number } });
        expect(
          got.map((e) => [e.key, e.data.seq]),
          `run ${id}'s events`,
        ).toEqual([
          [`run-${id}`, 1],
          [`run-${id}`, 2],
        ]);
        taken.push(...got.map((e) => e.id));
        expect(
          trail(p, id).filter((e) => e.type === 'event_taken').length,
          `run ${id}: each take once in the trail`,
        ).toBe(2);
      }
      expect(new Set(taken).size, 'no event taken twice').toBe(taken.length);
      expect([...taken].sort((a, b) => a - b)).toEqual(listed.map((e) => e.id).sort((a, b) => a - b));

      // Children: exactly one per parent, completed.
      const all = JSON.parse(p.shop(['list', '--json']).stdout) as {
        id: number;
        status: string;
        parent?: number | null;
      }[];
      const children = all.filter((r) => r.parent != null);
      for (const id of ids)
        expect(
          children.filter((c) => c.parent === id).map((c) => c.status),
          `run ${id}'s children`,
        ).toEqual(['completed']);

      // Timers: each wait's timer fired at most once, never before its due time (the runs' now() checks say it too).
      for (const id of [...ids, ...children.map((c) => c.id)]) {
        const fired = trail(p, id).filter((e) => e.type === 'timer_fired');
        const byKey = new Map<string, number>();
        for (const e of fired) byKey.set(e.key!, (byKey.get(e.key!) ?? 0) + 1);
        expect(
          [...byKey].filter(([, n]) => n > 1),
          `run ${id}: timers fired twice`,
        ).toEqual([]);
        for (const e of fired)
          expect(Date.parse(e.at), `run ${id} ${e.key} fired at its due time or after`).toBeGreaterThanOrEqual(
            Date.parse(String((e.data as { due_at: string }).due_at)),
          );
      }

      // Asks: every answering command succeeded (exit 7 = the run went on to sleep or wait), one answer per ask.
      expect(
        answers
          .filter((a) => ![0, 3, 7].includes(a.result.code ?? -1))
          .map((a) => `${a.handle} ${a.verb}: ${said(a.result)}`),
      ).toEqual([]);
      for (const id of [...ids, ...children.map((c) => c.id)]) {
        const keys = trail(p, id)
          .filter((e) => e.type === 'human_answered')
          .map((e) => e.key);
        expect({ id, answered: keys }).toEqual({ id, answered: ids.includes(id) ? ['1'] : ['3'] });
      }

      const spans = readSpans(spansFile);
      expect(callOverlaps(spans), `seed ${seed}`).toEqual([]);
      expect(finishedRerun(spans, ids, PARENT_AGENTS), `seed ${seed}`).toEqual([]);
      expect(
        finishedRerun(
          spans,
          children.map((c) => c.id),
          CHILD_AGENTS,
        ),
        `seed ${seed}`,
      ).toEqual([]);
      expect(spans.filter((s) => s.end === null).map((s) => `${s.host}:${s.pid} run ${s.run} call ${s.call}`)).toEqual(
        [],
      );
      expect(kills.length, 'the chaos killed something').toBeGreaterThan(0);
    },
    CAP_MS + 180_000,
  );
});
