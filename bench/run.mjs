// npm run bench — engine overhead per step, replay time of a long log, and one worker
// (shop watch) resuming many runs answered at once (P5).
// Targets (tracked, not enforced): ≤ 0.2 ms per step, ≤ 100 ms to replay 10,000 calls,
// ≤ 250 ms for shop test of a 20-call workflow, P5 ≤ 10 s and ≤ 300 MB for 1,000 runs.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRun, driveRun } from '../packages/core/dist/engine/drive-run.js';
import { nodePorts } from '../packages/core/dist/engine/node-ports.js';
import { findProject } from '../packages/core/dist/project/project.js';
import { writeSignal } from '../packages/core/dist/signals/signal.js';
import { parseFixture } from '../packages/core/dist/simulate/fixture.js';
import { simulate } from '../packages/core/dist/simulate/simulate.js';
import { p5 } from './p5-worker.mjs';

const STEPS = Number(process.env.BENCH_STEPS ?? 2000);
const REPLAY = Number(process.env.BENCH_REPLAY ?? 10000);

/** An in-process agent runner: reports DONE at once, no child process. */
const stubRunner = {
  async invoke(inv) {
    writeSignal(inv.env.SHOP_SIGNAL_FILE, { status: 'DONE', summary: 'ok' });
    return { exitCode: 0, error: null, output: '', metrics: { costUsd: 0, numTurns: 1, durationMs: 0 } };
  },
};

function project(workflow) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-bench-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'agents', 'worker.md'), '---\nmodel: sonnet\n---\nWork.\n');
  writeFileSync(join(dir, 'workflows', 'bench.lua'), workflow);
  const p = findProject(dir, {});
  const ports = nodePorts(p, { notifier: { notify() {} }, binDir: null, runner: stubRunner });
  return { p, ports, path: join(dir, 'workflows', 'bench.lua') };
}

const loop = (n, tail = '') => `function workflow(prompt)\n  for i = 1, ${n} do run("worker", "step " .. i) end\n  ${tail}\n  return "done"\nend\n`;

async function time(fn) {
  const t = process.hrtime.bigint();
  const v = await fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, v };
}

async function perStep() {
  const { ports, path } = project(loop(STEPS));
  const { run, owner } = await createRun(ports, { spec: 'bench', workflowPath: path, prompt: '', workspace: tmpdir(), actor: 'bench' });
  const { ms, v } = await time(() => driveRun(ports, run.id, { wait: false }, owner));
  if (v.status !== 'completed') throw new Error(`bench run ended ${v.status}`);
  return ms / STEPS;
}

async function replay() {
  const { ports, path } = project(loop(REPLAY, 'pause("end of bench")'));
  const { run, owner } = await createRun(ports, { spec: 'bench', workflowPath: path, prompt: '', workspace: tmpdir(), actor: 'bench' });
  const first = await driveRun(ports, run.id, { wait: false }, owner);
  if (first.status !== 'waiting_human') throw new Error(`bench run ended ${first.status}`);
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const { ms, v } = await time(() => driveRun(ports, run.id, { wait: false }));
    if (v.status !== 'waiting_human') throw new Error(`replay ended ${v.status}`);
    runs.push(ms);
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)];
}

/** shop test's engine: a 20-call workflow on simulated agents and a person (median of 5). */
async function simulated() {
  const source = `function workflow(p)\n  for i = 1, 19 do run("worker", "step " .. i) end\n  return pause("Ship?").continue\nend\n`;
  const parsed = parseFixture({ agents: { worker: Array.from({ length: 19 }, () => ({})) }, humans: [{ pause: 'Ship?', verdict: 'approve' }] });
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const { ms, v } = await time(() => simulate(source, 'bench', parsed.fixture));
    if (v.status !== 'completed') throw new Error(`simulated run ended ${v.status}: ${v.reason}`);
    runs.push(ms);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

const step = await perStep();
const sim = await simulated();
const rep = await replay();
const worker = await p5();
const row = (name, value, target) => `${name.padEnd(34)} ${value.toFixed(3).padStart(10)}  (target ≤ ${target}) ${value <= target ? 'ok' : 'OVER'}`;
console.log(`Shop benchmark — node ${process.version}`);
console.log(row(`engine overhead per step, ms (${STEPS} steps)`, step, 0.2));
console.log(row(`replay of ${REPLAY} recorded calls, ms (median of 5)`, rep, 100));
console.log(row('shop test: a 20-call workflow, ms (median of 5)', sim, 250));
console.log(row(`P5 shop watch: ${worker.runs} runs answered at once, s`, worker.seconds, 10));
console.log(row('P5 shop watch: peak RSS, MB', worker.peakRssMb, 300));
