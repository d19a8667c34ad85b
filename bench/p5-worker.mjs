// P5: one `shop watch` worker, N runs suspended on a pause, all answered at once; each run
// then starts one agent (a tiny shell stub through the agent's `command:`, so no Node start-up
// per agent). Measures the time until every run completed and the worker's peak RSS.
// Goal (tracked, not enforced): ≤ 10 s and ≤ 300 MB for 1,000 runs.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun, driveRun } from '../packages/core/dist/engine/drive-run.js';
import { findProject } from '../packages/core/dist/project/project.js';
import { shopEnv, sqlitePorts } from './shop-project.mjs';

const shopBin = fileURLToPath(new URL('../packages/cli/bin/shop', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A project whose agent is a shell one-liner reporting DONE. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p5-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  const stub = join(dir, 'agent.sh');
  writeFileSync(
    stub,
    '#!/bin/sh\nprintf \'{"status":"DONE"}\' > "$SHOP_SIGNAL_FILE"\necho \'{"type":"result","is_error":false,"result":"ok","total_cost_usd":0,"num_turns":1}\'\n',
  );
  chmodSync(stub, 0o755);
  writeFileSync(join(dir, 'agents', 'worker.md'), `---\ncommand: ["${stub}"]\n---\nWork.\n`);
  writeFileSync(
    join(dir, 'workflows', 'p5.lua'),
    'function workflow(prompt)\n  local go = pause("Go?")\n  return run("worker", "after").status\nend\n',
  );
  return dir;
}

/** Starts N runs and drives each to its pause (then no process holds them). */
async function suspended(dir, n) {
  const ports = sqlitePorts(findProject(dir, {}), { notifier: { notify() {} }, binDir: null });
  const ids = [];
  for (let i = 0; i < n; i++) {
    const { run, owner } = await createRun(ports, {
      spec: 'p5',
      workflowPath: join(dir, 'workflows', 'p5.lua'),
      prompt: `run ${i}`,
      workspace: dir,
      actor: 'bench',
    });
    const o = await driveRun(ports, run.id, { wait: false }, owner);
    if (o.status !== 'waiting_human') throw new Error(`run ${run.id} ended ${o.status}`);
    ids.push(run.id);
  }
  return { ports, ids };
}

function peakRssMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function p5(n = Number(process.env.BENCH_P5_RUNS ?? 1000)) {
  const dir = project();
  const { ports, ids } = await suspended(dir, n);
  const worker = spawn(
    process.execPath,
    [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : []), shopBin, 'watch'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: shopEnv() },
  );
  try {
    // The worker holds every run once it has taken them.
    for (;;) {
      const held = (await ports.store.listOpenRuns()).filter((r) => r.owner?.pid === worker.pid).length;
      if (held === n) break;
      await sleep(50);
    }
    const started = performance.now();
    for (const id of ids) {
      await ports.store.recordAnswer({
        runId: id,
        key: '1',
        ask: 1,
        verdict: 'approved',
        status: null,
        message: null,
        decisions: null,
        responder: 'bench',
        channel: 'cli',
      });
    }
    for (;;) {
      if ((await ports.store.listOpenRuns()).length === 0) break;
      await sleep(50);
    }
    const seconds = (performance.now() - started) / 1000;
    const rss = peakRssMb(worker.pid);
    const failed = (await ports.store.listRuns()).filter((r) => r.status !== 'completed').length;
    if (failed) throw new Error(`${failed} runs did not complete`);
    return { runs: n, seconds, peakRssMb: rss };
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('close', r));
    await ports.store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await p5();
  console.log(
    `P5 worker: ${r.runs} runs answered at once, all completed in ${r.seconds.toFixed(2)} s (goal ≤ 10), peak RSS ${r.peakRssMb.toFixed(0)} MB (goal ≤ 300)`,
  );
}
