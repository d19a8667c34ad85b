// npm run bench — Shop side by side with LangGraph.js (issue 10). Both sides run in this one
// process run, alternating sample by sample; each figure is the median of BENCH_ROUNDS (5)
// with min and max. Prints one table (progress goes to stderr) and writes bench/results.json.
// Goals are tracked, not enforced: a missed one says OVER, and the exit code stays 0.
//
//   P1  per recorded step: a 1,000-step loop on an in-process stub agent (ms per step)
//   P2  resume of a long run as a whole new process (Shop: 10,000 calls; both: 1,000)
//   P3  answer recorded by another process → call completed in a live driver (Shop only; p50, p95)
//   P4  `shop list` on a store of 100,000 runs against a bare node + better-sqlite3 query
//   P5  one `shop watch` worker resuming 1,000 runs answered at once (Shop only)
//   P6  store bytes per recorded step, audit trail included (from P1's stores)
//   P7  shop serve: the inbox page and /api/inbox on P4's store (p50, p95); answer posted → run completed
//   P9  one `shop watch` worker with 10,000 runs asleep (sleep()): its CPU while none is due, and how
//       late 200 due timers fire (p50, p99) (Shop only)
//   P10 `shop event send` → the waiting run's next step with one `shop watch` (p50, p95), SQLite and
//       (unless BENCH_PG=0) PostgreSQL (Shop only)
//   P11 the queue: a queued run taken by an idle `shop watch` (p50, p95; goal p50 ≤ 50 ms on PostgreSQL),
//       and 1,000 queued runs drained by 3 workers with config{ concurrency = 1 } per key held (Shop only)
//   P12 a schedule firing every second under one worker: how late each slot's run is taken (p50, p99;
//       goal p99 ≤ 1 s), SQLite and PostgreSQL (Shop only)
//   +   Shop-only: P1's floor (the store's writes of a step alone), an in-process replay, shop test
//   P8  Shop on PostgreSQL against DBOS Transact on the same throwaway cluster: workflows/s and
//       per-step latency with 1, 2 and 4 workers, answer → resumed, takeover after kill -9
//       (pg/compare.mjs; its own table, written to bench/results-pg.json; ~3 minutes)
//
// BENCH_ONLY=pg runs P8 alone; BENCH_PG=0 leaves it out. BENCH_ONLY=step runs the step's figures
// alone (P1, P2, P4, P6 and the + rows; ~2 minutes), written to bench/results-step.json.
//
// Sizes: BENCH_ROUNDS, BENCH_STEPS (P1), BENCH_REPLAY (P2, Shop), BENCH_P2_NODES (P2, both),
// BENCH_LG_BIG=1 (P2: LangGraph at BENCH_REPLAY nodes too — quadratic, many minutes),
// BENCH_SIGNALS (P3), BENCH_RUNS (P4), BENCH_P5_RUNS and BENCH_P5_ROUNDS (P5), BENCH_P9_RUNS,
// BENCH_P9_WAKES and BENCH_P9_SPACING_MS (P9).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { ensurePeer, peerVersions } from './peer.mjs';
import { formatPgTable, pgComparison } from './pg/compare.mjs';
import { p5 } from './p5-worker.mjs';
import { p9 } from './p9-sleepers.mjs';
import { p10 } from './p10-events.mjs';
import { p11Drain, p11Pickup } from './p11-queue.mjs';
import { p12 } from './p12-schedules.mjs';
import { startCluster } from '../scripts/pg-cluster.mjs';
import { answerToResumed, inboxRequests } from './p7-serve.mjs';
import * as shop from './shop-side.mjs';
import { signalLatencies } from './shop-p3-signal.mjs';
import { bareQuery, bigStore, listProcess } from './shop-p4-list.mjs';
import { alternate, summary } from './stats.mjs';
import { formatTable, overFloor, shopOnly, versus } from './table.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const sizes = {
  rounds: env('BENCH_ROUNDS', 5),
  steps: env('BENCH_STEPS', 1000),
  replay: env('BENCH_REPLAY', 10000),
  p2Nodes: env('BENCH_P2_NODES', 1000),
  lgBig: process.env.BENCH_LG_BIG === '1',
  signals: env('BENCH_SIGNALS', 50),
  runs: env('BENCH_RUNS', 100000),
  p5Runs: env('BENCH_P5_RUNS', 1000),
  p5Rounds: env('BENCH_P5_ROUNDS', 5),
  p7Samples: env('BENCH_P7_SAMPLES', 50),
  p9Runs: env('BENCH_P9_RUNS', 10000),
  p9Wakes: env('BENCH_P9_WAKES', 200),
  p10Samples: env('BENCH_P10_SAMPLES', 30),
  p11Samples: env('BENCH_P11_SAMPLES', 30),
  p11Runs: env('BENCH_P11_RUNS', 1000),
  p12Slots: env('BENCH_P12_SLOTS', 30),
};
const { rounds } = sizes;
const n = (v) => v.toLocaleString('en-US');
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

/** P8 — Shop on PostgreSQL vs DBOS Transact: its table, and bench/results-pg.json. */
async function p8() {
  const started = performance.now();
  const loadBefore = os.loadavg()[0];
  const result = await pgComparison(log);
  const load = [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(1)));
  const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
  console.log(formatPgTable(result));
  console.log(
    `(${seconds} s; load average ${load.join(' → ')} on ${os.cpus().length} cores; Shop's lease ${process.env.SHOP_LEASE_SECONDS ?? 15} s; DBOS queue polled every 50 ms, its default 1,000; p99 of ${result.sizes.answers} samples is their maximum)`,
  );
  const date = new Date().toISOString();
  writeFileSync(
    new URL('./results-pg.json', import.meta.url),
    `${JSON.stringify({ date, node: process.version, cores: os.cpus().length, loadAverage: load, peer: result.peer, sizes: result.sizes, seconds, rows: result.rows }, null, 2)}\n`,
  );
}

if (process.env.BENCH_ONLY === 'pg') {
  await p8();
  process.exit(0);
}

const installing = performance.now();
ensurePeer(log);
const installSeconds = Number(((performance.now() - installing) / 1000).toFixed(1));
const began = performance.now();
const lg = await import('./langgraph/side.mjs');

log(`P1/P6: ${n(sizes.steps)}-step loop, ${rounds} rounds (after a short unrecorded warm-up of each side)`);
await shop.perStep(100);
await lg.perStep(100);
const p1 = await alternate(rounds, {
  shop: () => shop.perStep(sizes.steps),
  langgraph: () => lg.perStep(sizes.steps),
  floor: () => shop.storeWritesPerStep(sizes.steps),
});

log(
  `P2: recording a ${n(sizes.replay)}-call and a ${n(sizes.p2Nodes)}-call Shop run, and a ${n(sizes.p2Nodes)}-node LangGraph thread`,
);
const shopBig = await shop.suspendedRun(sizes.replay);
const shopSmall = await shop.suspendedRun(sizes.p2Nodes);
const lgSmall = await lg.interruptedThread(sizes.p2Nodes);
const lgBig = sizes.lgBig ? await lg.interruptedThread(sizes.replay) : null;
log(`P2: resuming in new processes, ${rounds} rounds`);
const p2 = await alternate(rounds, {
  shopSmall: () => shop.resumeProcess(shopSmall),
  lgSmall: () => lg.resumeProcess(lgSmall),
  shopBig: () => shop.resumeProcess(shopBig),
  ...(lgBig ? { lgBig: () => lg.resumeProcess(lgBig) } : {}),
  node: () => shop.bareNode(),
  replay: () => shop.replayInProcess(shopBig),
});

log(`P4: a store of ${n(sizes.runs)} runs`);
const store = bigStore(sizes.runs);
const p4 = await alternate(rounds, { list: () => listProcess(store), bare: () => bareQuery(store) });

/** Everything but the step's figures: P3, P5, P7, P9–P12 (P7 reads P4's store). */
async function servingFigures(store) {
  log(`P3: ${sizes.signals} answers to a live driver`);
  const p3 = await signalLatencies(sizes.signals);
  log(
    `P7: shop serve on the same store, ${sizes.p7Samples} requests each; ${Math.min(sizes.p7Samples, 20)} answers through the server`,
  );
  const p7 = await inboxRequests(store, sizes.p7Samples);
  const p7Answers = await answerToResumed(Math.min(sizes.p7Samples, 20));

  log(`P5: ${n(sizes.p5Runs)} runs answered at once, ${sizes.p5Rounds} rounds`);
  const p5Runs = await alternate(sizes.p5Rounds, { worker: () => p5(sizes.p5Runs) });

  log(`P9: ${n(sizes.p9Runs)} runs asleep under one shop watch, ${n(sizes.p9Wakes)} of them due`);
  const p9Run = await p9(sizes.p9Runs, sizes.p9Wakes);

  log(`P10: ${sizes.p10Samples} events sent to a run waiting on them, one shop watch`);
  const p10Lite = await p10(sizes.p10Samples);
  let p10Pg = null;
  log(
    `P11: ${sizes.p11Samples} runs queued one by one to an idle worker; ${n(sizes.p11Runs)} queued runs drained by 3 workers`,
  );
  const p11 = { pickupSqlite: await p11Pickup(sizes.p11Samples), pickupPg: null, drainPg: null };
  log(`P12: a schedule firing every second, ${sizes.p12Slots} slots`);
  const p12Lite = await p12(sizes.p12Slots);
  let p12Pg = null;
  if (process.env.BENCH_PG !== '0') {
    const cluster = await startCluster();
    try {
      p10Pg = await p10(sizes.p10Samples, await cluster.createDatabase('p10'));
      p11.pickupPg = await p11Pickup(sizes.p11Samples, await cluster.createDatabase('p11a'));
      p11.drainPg = await p11Drain(sizes.p11Runs, 3, 1, await cluster.createDatabase('p11b'));
      p12Pg = await p12(sizes.p12Slots, await cluster.createDatabase('p12'));
    } finally {
      await cluster.stop();
    }
  }
  return { p3, p7, p7Answers, p5Runs, p9Run, p10Lite, p10Pg, p11, p12Lite, p12Pg };
}

const stepOnly = process.env.BENCH_ONLY === 'step';
const simulated = await alternate(rounds, { shopTest: () => shop.simulated() });
const rest = stepOnly ? null : await servingFigures(store);

// LangGraph at 10,000 nodes is left out unless BENCH_LG_BIG=1: a 1,000-node chain reaches its
// interrupt in ~9 s, 3,000 nodes in ~66 s (each step's checkpoint grows with the graph), so
// 10,000 would take ~12 minutes before any resume.
const listed = `\`shop ${store.args.join(' ')}\`${store.args.includes('--limit') ? '' : ' (every run: no --limit yet)'}`;
/** The rows of servingFigures' figures. */
function servingRows(got) {
  return {
    P3: [
      shopOnly('P3', 'answer → call completed, p50', 'ms', got.p3, { max: 2 }),
      shopOnly('P3', 'answer → call completed, p95', 'ms', got.p3, { p: 95 }),
    ],
    P5: [
      shopOnly(
        'P5',
        `shop watch: ${n(sizes.p5Runs)} runs answered at once`,
        's',
        got.p5Runs.worker.map((r) => r.seconds),
        { max: 10 },
      ),
      shopOnly(
        'P5',
        'shop watch: peak RSS',
        'MB',
        got.p5Runs.worker.map((r) => r.peakRssMb),
        { max: 300 },
      ),
    ],
    P7: [
      shopOnly(
        'P7',
        `shop serve: inbox page, ${n(sizes.runs)} runs (${n(sizes.runs / 100)} open asks), p50`,
        'ms',
        got.p7.page,
      ),
      shopOnly('P7', 'shop serve: inbox page, p95', 'ms', got.p7.page, { p: 95 }),
      shopOnly('P7', `shop serve: /api/inbox, ${n(sizes.runs)} runs, p50`, 'ms', got.p7.api),
      shopOnly('P7', 'shop serve: /api/inbox, p95', 'ms', got.p7.api, { p: 95 }),
      shopOnly('P7', 'shop serve: answer posted → run completed (background shop resume), p50', 'ms', got.p7Answers),
      shopOnly('P7', 'shop serve: answer posted → run completed, p95', 'ms', got.p7Answers, { p: 95 }),
    ],
    P9: [
      shopOnly(
        'P9',
        `shop watch: ${n(sizes.p9Runs)} runs asleep, CPU while none is due`,
        '% core',
        [got.p9Run.idleCpuPct],
        {
          max: 1,
        },
      ),
      shopOnly('P9', `shop watch: ${n(sizes.p9Wakes)} timers due, lateness p50`, 'ms', [got.p9Run.lateP50Ms]),
      shopOnly('P9', 'shop watch: timers due, lateness p99', 'ms', [got.p9Run.lateP99Ms], { max: 1000 }),
    ],
    P10: [
      shopOnly('P10', "event sent → the waiting run's next step, SQLite, p50", 'ms', [got.p10Lite.p50Ms], { max: 25 }),
      shopOnly('P10', 'event sent → next step, SQLite, p95', 'ms', [got.p10Lite.p95Ms]),
      ...(got.p10Pg
        ? [
            shopOnly('P10', 'event sent → next step, PostgreSQL, p50', 'ms', [got.p10Pg.p50Ms], { max: 25 }),
            shopOnly('P10', 'event sent → next step, PostgreSQL, p95', 'ms', [got.p10Pg.p95Ms]),
          ]
        : []),
    ],
    P11: [
      shopOnly('P11', 'a queued run taken by an idle worker, SQLite, p50', 'ms', [got.p11.pickupSqlite.p50Ms]),
      ...(got.p11.pickupPg
        ? [
            shopOnly('P11', 'a queued run taken by an idle worker, PostgreSQL, p50', 'ms', [got.p11.pickupPg.p50Ms], {
              max: 50,
            }),
            shopOnly('P11', 'a queued run taken, PostgreSQL, p95', 'ms', [got.p11.pickupPg.p95Ms]),
            shopOnly(
              'P11',
              `${n(got.p11.drainPg.runs)} queued runs drained by 3 workers (concurrency 1 per key held)`,
              's',
              [got.p11.drainPg.seconds],
            ),
            shopOnly(
              'P11',
              'runs of one key driven at once past the limit (must be 0)',
              'runs',
              [got.p11.drainPg.failed],
              {
                max: 0,
              },
            ),
          ]
        : []),
    ],
    P12: [
      shopOnly('P12', "a schedule's slot → its run taken, SQLite, p99", 'ms', [got.p12Lite.p99Ms], { max: 1000 }),
      ...(got.p12Pg
        ? [
            shopOnly('P12', "a schedule's slot → its run taken, PostgreSQL, p99", 'ms', [got.p12Pg.p99Ms], {
              max: 1000,
            }),
          ]
        : []),
    ],
  };
}

const figures = {
  P1: [
    versus(
      'P1',
      `per recorded step, ${n(sizes.steps)}-step loop`,
      'ms',
      p1.shop.map((s) => s.msPerStep),
      p1.langgraph.map((s) => s.msPerStep),
      { lgTimes: 2.5 },
    ),
  ],
  P2: [
    versus('P2', `resume ${n(sizes.p2Nodes)} calls, new process`, 'ms', p2.shopSmall, p2.lgSmall),
    ...(lgBig ? [versus('P2', `resume ${n(sizes.replay)} calls, new process`, 'ms', p2.shopBig, p2.lgBig)] : []),
    overFloor('P2', `resume ${n(sizes.replay)} calls, new process`, 'ms', p2.shopBig, p2.node, 'node -e 0', 4),
    shopOnly('P2', 'reference: node -e 0', 'ms', p2.node),
  ],
  P4: [
    overFloor('P4', `${listed}, ${n(sizes.runs)} runs`, 'ms', p4.list, p4.bare, 'bare', 1.5),
    shopOnly('P4', 'reference (bare): node -e + better-sqlite3, open, 1 query', 'ms', p4.bare),
  ],
  P6: [
    versus(
      'P6',
      'store bytes per recorded step (P1)',
      'B',
      p1.shop.map((s) => s.bytesPerStep),
      p1.langgraph.map((s) => s.bytesPerStep),
      { lgTimes: 2 },
    ),
  ],
  extra: [
    // The budget P1's goal leaves a whole step (LangGraph's step ÷ 7), against the store's writes alone.
    shopOnly('+', "P1's floor: a step's two store transactions alone (no Lua, no engine)", 'ms', p1.floor, {
      max: Number((summary(p1.langgraph.map((s) => s.msPerStep)).value / 7).toFixed(2)),
    }),
    shopOnly('+', `replay of ${n(sizes.replay)} calls in-process (no start-up)`, 'ms', p2.replay, { max: 100 }),
    shopOnly('+', 'shop test: a 20-call workflow', 'ms', simulated.shopTest, { max: 250 }),
  ],
  ...(rest ? servingRows(rest) : {}),
};

const cpus = os.cpus();
const machine = {
  cpu: cpus[0]?.model.trim() ?? 'unknown',
  cores: cpus.length,
  memoryGb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
};
const date = new Date().toISOString();
const peer = peerVersions();
const seconds = Number(((performance.now() - began) / 1000).toFixed(1));
const title = `Shop vs LangGraph.js ${peer['@langchain/langgraph']} (SqliteSaver) — median of ${rounds} (min–max) — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, ${date.slice(0, 10)}`;
console.log(formatTable(Object.values(figures).flat(), title));
console.log(
  `(${seconds} s${installSeconds >= 1 ? ` after ${installSeconds} s installing the peer` : ''}${rest ? `; P3: ${sizes.signals} samples, p50/p95 with min–max of all; P5: median of ${sizes.p5Rounds}; P7: request time on loopback, ${sizes.p7Samples} samples` : ''}; + : Shop-only figures kept from the old bench)`,
);
writeFileSync(
  new URL(stepOnly ? './results-step.json' : './results.json', import.meta.url),
  `${JSON.stringify({ date, machine, peer, sizes, seconds, installSeconds, figures }, null, 2)}\n`,
);
if (process.env.BENCH_PG !== '0' && !stepOnly) {
  console.log('');
  await p8();
}
