// P11: the queue (issue 26), Shop only, on PostgreSQL (SQLite with no URL).
//   pickup  a queued run (shop run --detach) taken by an idle `shop watch` worker: run_taken's time
//           minus run_started's, both by the store's clock (p50, p95). Goal: p50 ≤ 50 ms on PostgreSQL.
//   drain   N runs queued at once (config{ concurrency = 1 }, keys k0…k4) drained by W workers: the
//           time from the first worker's start until every run completed, and runs/s. Each run holds
//           its key's lock (mkdir is atomic) while it works: two of one key at once fail, so `failed`
//           must be 0 (the limit held).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProject } from '../packages/core/dist/project/project.js';
import { openStore } from '../packages/core/dist/store/open-store.js';
import { shopBin, shopEnv } from './shop-project.mjs';
import { percentile } from './stats.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const KEYS = 5;

function project(databaseUrl, concurrency) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p11-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'workflows', 'q.lua'),
    concurrency
      ? // Each run holds its key's lock (mkdir is atomic) while it works: two of one key at once fail.
        `config{ concurrency = ${concurrency} }\nfunction workflow(prompt)\n  local lock = "${dir}/lock-" .. prompt\n  if sh({"mkdir", lock}).code ~= 0 then error("two at once") end\n  sh({"rmdir", lock})\n  return prompt\nend\n`
      : 'function workflow(prompt)\n  now()\n  return prompt\nend\n',
  );
  const env = { ...shopEnv(), ...(databaseUrl ? { SHOP_DATABASE_URL: databaseUrl } : {}) };
  const shop = (args) => {
    const r = spawnSync(process.execPath, [shopBin, ...args], { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`shop ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  if (databaseUrl) shop(['init', '--database', databaseUrl]);
  return { dir, env, shop };
}

function worker(p) {
  const child = spawn(process.execPath, [shopBin, 'watch'], {
    cwd: p.dir,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: p.env,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return {
    ready: async () => {
      while (!out.includes('watching')) await sleep(20);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
    },
  };
}

const at = (events, type) => Date.parse(events.find((e) => e.type === type).at);

export async function p11Pickup(samples = 30, databaseUrl = null) {
  const p = project(databaseUrl, null);
  const w = worker(p);
  try {
    await w.ready();
    await sleep(500);
    const ids = [];
    for (let i = 0; i < samples; i++) {
      ids.push(Number(/^run (\d+) queued/.exec(p.shop(['run', 'q', String(i), '--detach']))[1]));
      await sleep(250);
    }
    for (;;) {
      const runs = JSON.parse(p.shop(['list', '--json']));
      if (runs.every((r) => r.status === 'completed')) break;
      await sleep(200);
    }
    const lat = ids
      .map((id) => {
        const events = JSON.parse(p.shop(['log', String(id), '--json'])).events;
        return at(events, 'run_taken') - at(events, 'run_started');
      })
      .sort((a, b) => a - b);
    return { samples, p50Ms: percentile(lat, 50), p95Ms: percentile(lat, 95) };
  } finally {
    await w.stop();
    rmSync(p.dir, { recursive: true, force: true });
  }
}

export async function p11Drain(runs = 1000, workers = 3, concurrency = 1, databaseUrl = null) {
  const p = project(databaseUrl, concurrency);
  const store = await openStore(findProject(p.dir, {}), p.env);
  try {
    const path = join(p.dir, 'workflows', 'q.lua');
    for (let i = 0; i < runs; i++)
      await store.queueRun({
        spec: 'q',
        workflowPath: path,
        workflowHash: null,
        prompt: `k${i % KEYS}`,
        workspace: p.dir,
        branch: null,
        seed: 1,
        actor: 'bench',
        rules: null,
        priority: 0,
        queueKey: `k${i % KEYS}`,
        concurrency,
        trigger: { kind: 'api', name: null, by: 'bench', data: null },
        startId: null,
      });
    const started = performance.now();
    const ws = Array.from({ length: workers }, () => worker(p));
    try {
      for (;;) {
        const left = await store.countRuns({ active: true });
        if (left === 0) break;
        await sleep(100);
      }
    } finally {
      await Promise.all(ws.map((w) => w.stop()));
    }
    const seconds = (performance.now() - started) / 1000;
    const all = await store.listRuns({});
    const failed = all.filter((r) => r.status !== 'completed').length;
    return {
      runs,
      workers,
      concurrency,
      seconds: Number(seconds.toFixed(2)),
      perSecond: Math.round(runs / seconds),
      failed,
    };
  } finally {
    await store.close();
    rmSync(p.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startCluster } = await import('../scripts/pg-cluster.mjs');
  const cluster = await startCluster();
  try {
    console.log(JSON.stringify({ pickupPg: await p11Pickup(30, await cluster.createDatabase('p11a')) }));
    console.log(
      JSON.stringify({
        drainPg: await p11Drain(Number(process.env.BENCH_P11_RUNS ?? 1000), 3, 1, await cluster.createDatabase('p11b')),
      }),
    );
  } finally {
    await cluster.stop();
  }
  console.log(JSON.stringify({ pickupSqlite: await p11Pickup(30) }));
}
