import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  makeProject,
  runId,
  stopWorker,
  trail,
  until,
  type Background,
  type Project,
} from './harness.js';
import { overlaps, readSpans, rerunsAfterCompletion, stillRunning } from './spans.js';

/**
 * kill -9 of the driver alone (its agents, each the leader of its own process group, live
 * on), then a takeover by `shop resume` or by `shop watch`, over many random trials: never
 * two agent processes on one session at once, no answer lost, no finished agent run again,
 * and every run ends as it would have without the crash.
 */
const TRIALS = 40;
const LANES = 4;

const WORKFLOW = `function workflow(prompt)
  local plan = run("planner")
  local code, tests = parallel(function() return run("coder") end, function() return run("tester") end)
  local go = pause("Ship it?")
  local ship = run("shipper")
  return plan.summary .. "|" .. code.summary .. "|" .. tests.summary .. "|" .. tostring(go.continue) .. "|" .. ship.summary
end
`;
const EXPECTED = 'plan|code|tests|true|shipped';
const AGENTS = { planner: 'plan', coder: 'code', tester: 'tests', shipper: 'shipped' };

/** A small seeded generator: a failing trial can be told apart and repeated. */
function random(seed: number) {
  let s = seed >>> 0;
  return (lo: number, hi: number) => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return lo + (s % (hi - lo + 1));
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lane(): Project {
  const p = makeProject();
  p.env.SHOP_STANDIN_SPANS = join(p.dir, 'spans.jsonl');
  // Short leases: a driver killed -9 is judged gone by its pid at once; this bounds the rest.
  p.env.SHOP_LEASE_SECONDS = '3';
  p.write('workflows/chaos.lua', WORKFLOW);
  for (const name of Object.keys(AGENTS))
    p.write(`agents/${name}.md`, `---\ndescription: ${name} of the chaos test\n---\nYou are the ${name}.\n`);
  // Each agent works a little (paced events), so kills land while agents run.
  p.scenario({
    agents: Object.fromEntries(
      Object.entries(AGENTS).map(([name, summary]) => [name, [{ status: 'DONE', summary, pace_ms: 60 }]]),
    ),
  });
  return p;
}

/** Starts `shop …`, kills it -9 after `ms` (if it is still running); its exit code, or null when killed. */
async function killAfter(bg: Background, ms: number): Promise<number | null> {
  const timer = setTimeout(() => bg.child.kill('SIGKILL'), ms);
  const code = await bg.exited;
  clearTimeout(timer);
  return code;
}

/** The run's status, read without blocking the other lanes (spawnSync would stall them all). */
async function statusOf(p: Project, id: number): Promise<string> {
  const r = await p.shopAsync(['status', String(id), '--json']);
  return (JSON.parse(r.stdout) as { status: string }).status;
}

/** Each look is a `shop status` process: spaced out, so the other lanes keep their share of the machine. */
const waitFor = (p: Project, id: number, want: string) =>
  until(`run ${id} to become ${want}`, async () => (await statusOf(p, id)) === want, {
    timeoutMs: 30_000,
    everyMs: 300,
  });

/** Whether a person's answer is on record for the run (an approve killed before it recorded one gave none). */
async function answered(p: Project, id: number): Promise<boolean> {
  const r = await p.shopAsync(['log', String(id), '--json']);
  return (JSON.parse(r.stdout) as { events: { type: string }[] }).events.some((e) => e.type === 'human_answered');
}

/** One trial: run, kill the driver, take over (resume or watch), approve the pause from a script, maybe kill again. */
async function trial(p: Project, seed: number): Promise<number> {
  const rnd = random(seed);
  const run = p.spawnShop(['run', 'chaos', `trial ${seed}`]);
  await until('the run to start', () => /run \d+ started/.test(run.output()) || run.child.exitCode !== null);
  const id = runId(run.output());
  await killAfter(run, rnd(0, 900));
  if (rnd(0, 1) === 0) {
    // Takeover by shop resume, itself killed now and then; then the approval drives the rest here.
    for (let i = 0; (await statusOf(p, id)) !== 'waiting_human' && i < 5; i++) {
      await killAfter(p.spawnShop(['resume', String(id)]), i === 0 && rnd(0, 1) ? rnd(50, 600) : 60_000);
    }
    expect(await statusOf(p, id)).toBe('waiting_human');
    const approve = await killAfter(p.spawnShop(['approve', String(id)]), rnd(0, 1) ? rnd(50, 500) : 60_000);
    if (approve === null) {
      // Killed before it recorded the answer: nothing was answered, so approve again. Killed
      // after: the answer is recorded and must not be lost; a resume carries on.
      if (!(await answered(p, id))) expect((await p.shopAsync(['approve', String(id)])).code).toBe(0);
      for (let i = 0; (await statusOf(p, id)) !== 'completed' && i < 3; i++) await p.shopAsync(['resume', String(id)]);
    }
  } else {
    // Takeover by shop watch; the approval is left to it.
    let watch = p.spawnShop(['watch', String(id)]);
    if (rnd(0, 1)) {
      await sleep(rnd(100, 700));
      watch.child.kill('SIGKILL');
      await watch.exited;
      watch = p.spawnShop(['watch', String(id)]);
    }
    await waitFor(p, id, 'waiting_human');
    const approve = await p.shopAsync(['approve', String(id)]);
    expect(approve.code, approve.stderr).toBe(0);
    await waitFor(p, id, 'completed');
    expect(await stopWorker(watch)).not.toBe('still running');
  }
  return id;
}

describe('chaos: kill -9 of the driver alone, then takeover by shop resume or shop watch', () => {
  afterEach(killLeftovers);

  it(`never two agent processes on one session, no answer lost, no finished agent re-run (${TRIALS} random trials)`, async () => {
    const seed = Number(process.env.CHAOS_SEED) || Date.now() % 100_000;
    const projects = Array.from({ length: LANES }, lane);
    const runs: { p: Project; id: number; seed: number }[] = [];
    await Promise.all(
      projects.map(async (p, l) => {
        for (let t = l; t < TRIALS; t += LANES) runs.push({ p, id: await trial(p, seed + t), seed: seed + t });
      }),
    );
    expect(runs).toHaveLength(TRIALS);

    for (const { p, id, seed: s } of runs) {
      const status = p.status(id);
      expect({ seed: s, status: status.status, result: status.result }).toEqual({
        seed: s,
        status: 'completed',
        result: EXPECTED,
      });
      // The one approval was recorded and taken in, exactly once.
      const answers = trail(p, id).filter((e) => e.type === 'human_answered');
      expect(
        answers.map((a) => [a.key, a.actor]),
        `seed ${s}`,
      ).toEqual([['3', 'tester']]);
    }
    for (const p of projects) {
      const spans = readSpans(p.env.SHOP_STANDIN_SPANS!);
      expect(spans.length).toBeGreaterThanOrEqual((TRIALS / LANES) * 4);
      expect(overlaps(spans), `seed ${seed}`).toEqual([]);
      expect(rerunsAfterCompletion(spans), `seed ${seed}`).toEqual([]);
      // No agent process left behind by a killed driver. One stopped by SIGKILL (its grace spent,
      // or its PID namespace ended) logged no end: the kernel's word on its presence says it is gone.
      expect(stillRunning(spans).map((s) => `${s.pid} run ${s.run} call ${s.call}`)).toEqual([]);
    }
  }, 480_000);
});
