// P9: one `shop watch` worker with N runs asleep (sleep()), K of them due within the bench,
// spread over a few seconds. Measures the worker's CPU while nothing is due (share of one core),
// and how late each due run's timer fires (timer_fired's time minus its due time, the store's
// clock): p50 and p99. Goal (tracked, not enforced): < 1 % of a core idle, p99 ≤ 1 s, for 10,000 runs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRun } from '../packages/core/dist/engine/drive-run.js';
import { findProject } from '../packages/core/dist/project/project.js';
import { shopEnv, sqlitePorts } from './shop-project.mjs';
import { percentile } from './stats.mjs';

const shopBin = fileURLToPath(new URL('../packages/cli/bin/shop', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const DAY = 86_400_000;

/** CPU seconds (user + system) the process has used so far. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * N runs asleep as the engine records them (call 1: sleep, its due time, a wake timer row),
 * made through the store directly — driving 10,000 runs through Lua first would take minutes.
 * Run i < K is due at `firstDue + i * spacingMs`; the others sleep a day. No process holds them.
 */
async function asleep(ports, dir, n, due) {
  const workflowPath = join(dir, 'workflows', 'p9.lua');
  const ids = [];
  for (let i = 0; i < n; i++) {
    const { run, owner } = await createRun(ports, {
      spec: 'p9',
      workflowPath,
      prompt: `run ${i}`,
      workspace: dir,
      actor: 'bench',
    });
    const until = due(i);
    const wait = {
      kind: 'timer',
      until,
      runStatus: 'waiting',
      event: { type: 'wait_started', key: '1', actor: 'shop', channel: 'engine', data: { kind: 'timer' } },
    };
    await ports.store.startExecution(owner.token, {
      runId: run.id,
      key: '1',
      kind: 'sleep',
      agent: null,
      fingerprint: 'sleep()',
      sessionId: null,
      cwd: dir,
      prompt: null,
      request: { type: 'sleep', seconds: 86400, due_at: until },
      signalPath: null,
      waitOn: wait,
    });
    await ports.store.releaseRun(run.id, owner.token, { ifIdle: false });
    ids.push(run.id);
  }
  return ids;
}

export async function p9(
  n = Number(process.env.BENCH_P9_RUNS ?? 10_000),
  k = Number(process.env.BENCH_P9_WAKES ?? 200),
  idleMs = Number(process.env.BENCH_P9_IDLE_MS ?? 20_000),
) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p9-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'workflows', 'p9.lua'), 'function workflow(prompt)\n  sleep(86400)\n  return "woke"\nend\n');
  const ports = sqlitePorts(findProject(dir, {}), { notifier: { notify() {} }, binDir: null });
  // 10 wakes a second: each is a replay of its run (a Lua VM, its log) and a transaction or two.
  const spacingMs = Number(process.env.BENCH_P9_SPACING_MS ?? 100);
  // The K due ones come after the worker has started and an idle window has passed; placed once the runs exist.
  let firstDue;
  const made = performance.now();
  const ids = await asleep(ports, dir, n, (i) => (i < k ? 0 : ports.store.now() + DAY));
  const makeSeconds = (performance.now() - made) / 1000;
  const worker = spawn(
    process.execPath,
    [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROF] : []), shopBin, 'watch'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env: { ...shopEnv(), SHOP_LEASE_SECONDS: '15' } },
  );
  let out = '';
  worker.stdout.on('data', (d) => (out += d));
  try {
    while (!out.includes('watching')) await sleep(50);
    // Now the due times of the first K: after a settle-in and the idle window.
    firstDue = ports.store.now() + 3_000 + idleMs;
    const db = ports.store;
    for (let i = 0; i < k; i++) await setDue(dir, ids[i], firstDue + i * spacingMs);
    // Let the worker see the new due times (its sweep, at most a third of a lease), then measure it idle.
    await sleep(3_000);
    const cpu0 = cpuSeconds(worker.pid);
    const t0 = performance.now();
    await sleep(idleMs - 1_000);
    const idleCpu = (cpuSeconds(worker.pid) - cpu0) / ((performance.now() - t0) / 1000);
    for (;;) {
      const open = await db.listRuns({ status: 'waiting' });
      if (open.length <= n - k) break;
      await sleep(100);
    }
    const late = [];
    for (let i = 0; i < k; i++) {
      const fired = (await db.listEvents(ids[i])).find((e) => e.type === 'timer_fired');
      if (!fired) throw new Error(`run ${ids[i]} has no timer_fired`);
      late.push(fired.at - (firstDue + i * spacingMs));
      const run = await db.getRun(ids[i]);
      if (run.status !== 'completed') throw new Error(`run ${ids[i]} is ${run.status}`);
    }
    late.sort((a, b) => a - b);
    return {
      runs: n,
      wakes: k,
      makeSeconds,
      idleCpuPct: idleCpu * 100,
      lateP50Ms: percentile(late, 50),
      lateP99Ms: percentile(late, 99),
      earliestMs: late[0],
    };
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('close', r));
    await ports.store.close();
  }
}

/** Moves a sleeping run's due time (its call and its wake row), as if it had been recorded so. */
async function setDue(dir, runId, at) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dir, '.shop', 'shop.db'));
  try {
    db.prepare(
      `UPDATE executions SET wait_until = ?, request = json_set(request, '$.due_at', ?) WHERE run_id = ? AND call_key = '1'`,
    ).run(at, at, runId);
    db.prepare(`UPDATE timers SET due_at = ? WHERE run_id = ? AND kind = 'wake'`).run(at, runId);
  } finally {
    db.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await p9()));
}
