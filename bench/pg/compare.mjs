// P8 — Shop on PostgreSQL side by side with DBOS Transact (bench/dbos/, installed on first
// use) on one throwaway PostgreSQL cluster (scripts/pg-cluster.mjs; fsync off for both), each
// scenario on a fresh database. Both sides run the same 10-step workflow whose steps are the
// same stub child process (./step-stub.mjs), so the difference is the engines' own cost.
//
//   throughput   BENCH_PG_RUNS workflows recorded at once, 1, 2 and 4 worker processes
//                (BENCH_PG_WORKERS): workflows/s, each workflow's per-step latency, and the
//                whole machine's CPU per step from the first workflow recorded to the last done
//                (/proc/stat: every process, PostgreSQL's too)
//   alone        one workflow at a time on one worker: per-step latency
//   answer       a workflow waiting for a person, answered by a new process (`shop approve` /
//                DBOSClient.send): p50/p99 from its spawn, and from the answer recorded, to the
//                next step's start (BENCH_PG_ANSWERS samples)
//   takeover     kill -9 of the worker driving a run mid-step, a second worker alive: to the
//                run's next step (BENCH_PG_TAKEOVERS samples); and the worker restarted at once
//                on the same machine (DBOS: the same executor id, its only recovery without
//                the paid Conductor)
//
// Alone: `node bench/pg/compare.mjs` (after `npm run build`) prints this table only.
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../../scripts/pg-cluster.mjs';
import { ensurePeer, peerVersions } from '../peer.mjs';
import { formatTable, versusDbos } from '../table.mjs';
import * as shop from './shop-side.mjs';
import { writeStub } from './step-stub.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
export const pgSizes = () => ({
  runs: Number(env('BENCH_PG_RUNS', 16)),
  workers: env('BENCH_PG_WORKERS', '1,2,4').split(',').map(Number),
  rounds: Number(env('BENCH_PG_ROUNDS', 2)),
  alone: Number(env('BENCH_PG_ALONE', 5)),
  answers: Number(env('BENCH_PG_ANSWERS', 15)),
  takeovers: Number(env('BENCH_PG_TAKEOVERS', 2)),
  survivorWaitMs: Number(env('BENCH_PG_SURVIVOR_WAIT_MS', 30_000)),
  slowStepMs: 400,
});

/**
 * The split of P8's machine CPU by process (machine-cpu.mjs cpuWindow): where a side's CPU per
 * step goes. The rest is mostly the steps' own short-lived processes (for Shop the step's PID
 * namespace — unshare and its init — too) and processes that ended within the window.
 */
const CPU_KINDS = [
  ['workers', 'the workers (shop watch / DBOS executors)'],
  ['postgres', "PostgreSQL's processes"],
  ['agent hosts', "Shop's agent hosts (start each step's process)"],
  ['bench', "the bench's own polling and recording"],
  ['rest', "the rest: the steps' processes, and those that ended in the window"],
];

/** Runs P8; resolves to its table rows, the DBOS version and the sizes. */
export async function pgComparison(log, sizes = pgSizes()) {
  ensurePeer(log, 'dbos');
  const dbos = await import('../dbos/side.mjs');
  const cluster = await startCluster();
  const dir = mkdtempSync(join(tmpdir(), 'shop-bench-p8-'));
  let seq = 0;
  // BENCH_PG_SHOP_SQLITE=1: Shop's side on its own SQLite file instead (DBOS stays on PostgreSQL).
  const ctx = {
    cluster,
    ...writeStub(dir),
    seq: () => ++seq,
    settleMs: 100,
    slowStepMs: sizes.slowStepMs,
    sqlite: process.env.BENCH_PG_SHOP_SQLITE === '1',
  };
  // Sample by sample in turn, the side going first alternating, so a noisy moment of the machine
  // falls on both sides alike.
  let turn = 0;
  const both = async (fn) => {
    if (turn++ % 2 === 0) return { shop: await fn(shop), dbos: await fn(dbos) };
    const d = await fn(dbos);
    return { shop: await fn(shop), dbos: d };
  };
  const pooled = (list, key) => list.flatMap((x) => x[key]);
  try {
    const rows = [];
    for (const k of sizes.workers) {
      log(`P8: ${sizes.runs} workflows of 10 steps at once, ${k} worker(s), ${sizes.rounds} round(s) each side`);
      const s = [],
        d = [];
      for (let r = 0; r < sizes.rounds; r++) {
        const got = await both((side) => side.throughput(ctx, k, sizes.runs, 10));
        s.push(got.shop);
        d.push(got.dbos);
        log(
          `P8:   runs per worker — Shop ${got.shop.spread.join('/')} (${got.shop.perSecond.toFixed(2)}/s), DBOS ${got.dbos.spread.join('/')} (${got.dbos.perSecond.toFixed(2)}/s)`,
        );
      }
      rows.push(
        versusDbos(
          'P8',
          `${sizes.runs} × 10-step workflows, ${k} worker${k > 1 ? 's' : ''}: workflows/s`,
          '/s',
          s.map((x) => x.perSecond),
          d.map((x) => x.perSecond),
          { higher: true, atLeast: 1 },
        ),
      );
      rows.push(
        versusDbos(
          'P8',
          `  per-step latency under that load (median of workflows)`,
          'ms',
          pooled(s, 'stepMs'),
          pooled(d, 'stepMs'),
        ),
      );
      const cpuPerStep = (list) => list.filter((x) => x.cpuMs !== null).map((x) => x.cpuMs / (sizes.runs * 10));
      if (s.every((x) => x.cpuMs !== null))
        rows.push(
          versusDbos('P8', '  machine CPU per step (all processes, /proc/stat)', 'ms', cpuPerStep(s), cpuPerStep(d), {
            atLeast: 1,
          }),
        );
      if (s.every((x) => x.cpuByKind) && d.every((x) => x.cpuByKind))
        for (const [kind, label] of CPU_KINDS) {
          const perStep = (list) => list.map((x) => (x.cpuByKind[kind] ?? 0) / (sizes.runs * 10));
          rows.push(
            versusDbos('P8', `    of which ${label}`, 'ms', perStep(s), kind === 'agent hosts' ? null : perStep(d)),
          );
        }
    }
    log(`P8: one workflow at a time, ${sizes.alone} each side`);
    const alone = { shop: [], dbos: [] };
    for (let r = 0; r < sizes.alone; r++) {
      const got = await both((side) => side.throughput(ctx, 1, 1, 10));
      alone.shop.push(...got.shop.stepMs);
      alone.dbos.push(...got.dbos.stepMs);
    }
    rows.push(
      versusDbos(
        'P8',
        'per-step latency, one workflow alone (the stub step ~ its process)',
        'ms',
        alone.shop,
        alone.dbos,
        { atLeast: 1 },
      ),
    );
    log(`P8: ${sizes.answers} answers from new processes each side, 5 at a time`);
    const ans = { shop: { fromSpawn: [], fromCommit: [] }, dbos: { fromSpawn: [], fromCommit: [] } };
    for (let left = sizes.answers; left > 0; left -= 5) {
      const got = await both((side) => side.answers(ctx, Math.min(5, left)));
      for (const side of ['shop', 'dbos'])
        for (const k of ['fromSpawn', 'fromCommit']) ans[side][k].push(...got[side][k]);
    }
    rows.push(
      versusDbos(
        'P8',
        'answer by a new process (shop approve / DBOSClient.send) → resumed, p50',
        'ms',
        ans.shop.fromSpawn,
        ans.dbos.fromSpawn,
      ),
    );
    rows.push(versusDbos('P8', '  the same, p99', 'ms', ans.shop.fromSpawn, ans.dbos.fromSpawn, { p: 99 }));
    rows.push(
      versusDbos(
        'P8',
        'answer recorded → resumed (next step started), p50',
        'ms',
        ans.shop.fromCommit,
        ans.dbos.fromCommit,
      ),
    );
    rows.push(versusDbos('P8', '  the same, p99', 'ms', ans.shop.fromCommit, ans.dbos.fromCommit, { p: 99 }));
    if (sizes.takeovers > 0) rows.push(...(await takeovers(ctx, sizes, log)));
    return { rows, peer: peerVersions('dbos'), sizes };
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** kill -9 of a worker: the other worker taking over (Shop) or not (DBOS), and a restart at once. */
async function takeovers(ctx, sizes, log) {
  const dbos = await import('../dbos/side.mjs');
  const rows = [];
  log(
    `P8: takeover after kill -9, ${sizes.takeovers} each side (Shop waits out its lease; DBOS is watched ${sizes.survivorWaitMs / 1000} s once)`,
  );
  // Both sides mostly wait here (Shop for its lease, DBOS to show nothing happens), so they
  // run at once; the restarts come after, one side at a time.
  const [shopTook, dbosTook] = await Promise.all([
    shop.takeover(ctx, sizes.takeovers),
    dbos.takeover(ctx, 1, sizes.survivorWaitMs),
  ]);
  const shopRestart = await shop.restart(ctx, sizes.takeovers);
  const dbosRestart = await dbos.takeover(ctx, sizes.takeovers);
  const survivorNote =
    dbosTook.survivorTook === null
      ? `never: not in ${sizes.survivorWaitMs / 1000} s (no failure detection without Conductor)`
      : null;
  rows.push(
    versusDbos(
      'P8',
      'kill -9 of the worker driving a run → next step, by the other worker (another host)',
      'ms',
      shopTook.took,
      dbosTook.survivorTook === null ? null : [dbosTook.survivorTook],
      { note: survivorNote },
    ),
  );
  rows.push(
    versusDbos(
      'P8',
      'kill -9, the worker restarted at once on its host (DBOS: same executor id) → next step',
      'ms',
      shopRestart.took,
      dbosRestart.restarts,
    ),
  );
  return rows;
}

export function formatPgTable(result) {
  const cpus = os.cpus();
  const title = `P8 Shop on PostgreSQL vs DBOS Transact ${result.peer['@dbos-inc/dbos-sdk']} — same cluster, same stub step — ${cpus[0]?.model.trim() ?? 'unknown'}, ${cpus.length} cores, node ${process.version}`;
  return formatTable(result.rows, title, 'DBOS');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await pgComparison((m) => process.stderr.write(`bench: ${m}\n`));
  console.log(formatPgTable(result));
}
