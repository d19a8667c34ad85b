// P12: schedules (issue 26), Shop only. A schedule firing every second ("* * * * * *") under one
// `shop watch` worker for N slots: how late each slot's run is taken — its run_taken time minus
// the slot's instant, both by the store's clock (p50, p99). Goal: p99 ≤ 1 s, on PostgreSQL
// (`databaseUrl`) and SQLite.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shopBin, shopEnv } from './shop-project.mjs';
import { percentile } from './stats.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function p12(slots = Number(process.env.BENCH_P12_SLOTS ?? 30), databaseUrl = null) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p12-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'workflows', 'tick.lua'), 'function workflow(prompt)\n  now()\n  return "ok"\nend\n');
  const env = { ...shopEnv(), ...(databaseUrl ? { SHOP_DATABASE_URL: databaseUrl } : {}) };
  const shop = (args) => {
    const r = spawnSync(process.execPath, [shopBin, ...args], { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`shop ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  if (databaseUrl) shop(['init', '--database', databaseUrl]);
  shop(['schedule', 'add', 'tick', 'tick', '--cron', '* * * * * *', '--tz', 'UTC', '--overlap', 'allow']);
  const worker = spawn(process.execPath, [shopBin, 'watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  worker.stdout.on('data', (d) => (out += d));
  try {
    while (!out.includes('watching')) await sleep(20);
    // The first slots after start may be a catch-up: measured from the third on.
    for (;;) {
      const fired = JSON.parse(shop(['schedule', 'slots', 'tick', '--limit', '1000', '--json'])).filter(
        (s) => s.outcome === 'fired',
      );
      if (fired.length >= slots + 2) break;
      await sleep(500);
    }
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('close', r));
  }
  try {
    const fired = JSON.parse(shop(['schedule', 'slots', 'tick', '--limit', '1000', '--json']))
      .filter((s) => s.outcome === 'fired' && s.run_id !== null)
      .sort((a, b) => Date.parse(a.slot) - Date.parse(b.slot))
      .slice(2, slots + 2);
    const late = fired
      .map((s) => {
        const events = JSON.parse(shop(['log', String(s.run_id), '--json'])).events;
        const taken = events.find((e) => e.type === 'run_taken');
        return taken ? Date.parse(taken.at) - Date.parse(s.slot) : Infinity;
      })
      .sort((a, b) => a - b);
    return { slots: late.length, p50Ms: percentile(late, 50), p99Ms: percentile(late, 99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify({ sqlite: await p12() }));
  const { startCluster } = await import('../scripts/pg-cluster.mjs');
  const cluster = await startCluster();
  try {
    console.log(JSON.stringify({ pg: await p12(30, await cluster.createDatabase('p12')) }));
  } finally {
    await cluster.stop();
  }
}
