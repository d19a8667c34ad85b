// P10: `shop event send` from another process → the waiting run's next step, with one `shop watch`
// worker on the store. A run waits on `wait_event("tick")` N times (a now() after each); each
// event is sent a few hundred ms after the last, and the latency is the next call's start minus
// the event's sent_at (both by the store's clock). Goal (tracked, not enforced): p50 ≤ 25 ms, on
// SQLite and on PostgreSQL (`databaseUrl`).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shopBin, shopEnv } from './shop-project.mjs';
import { percentile } from './stats.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function p10(samples = Number(process.env.BENCH_P10_SAMPLES ?? 30), databaseUrl = null) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-p10-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(
    join(dir, 'workflows', 'p10.lua'),
    `function workflow(prompt)\n  for i = 1, ${samples} do\n    wait_event("tick")\n    now()\n  end\n  return "done"\nend\n`,
  );
  const env = { ...shopEnv(), ...(databaseUrl ? { SHOP_DATABASE_URL: databaseUrl } : {}) };
  const shop = (args, expect = 0) => {
    const r = spawnSync(process.execPath, [shopBin, ...args], { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== expect) throw new Error(`shop ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  if (databaseUrl) shop(['init', '--database', databaseUrl]);
  const id = Number(/run (\d+)/.exec(shop(['run', 'p10'], 7))[1]);
  const worker = spawn(process.execPath, [shopBin, 'watch'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  worker.stdout.on('data', (d) => (out += d));
  try {
    while (!out.includes('watching')) await sleep(50);
    await sleep(500);
    const sentAt = [];
    for (let i = 1; i <= samples; i++) {
      sentAt.push(Date.parse(JSON.parse(shop(['event', 'send', 'tick', '--data', String(i), '--json'])).event.sent_at));
      await sleep(300);
    }
    for (;;) {
      if (JSON.parse(shop(['status', String(id), '--json'])).status === 'completed') break;
      await sleep(200);
    }
    const calls = JSON.parse(shop(['status', String(id), '--json'])).executions;
    const started = (key) => Date.parse(calls.find((e) => e.key === key).started_at);
    const latencies = sentAt.map((t, i) => started(String(2 * (i + 1))) - t).sort((a, b) => a - b);
    return { samples, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95) };
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.on('close', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await p10()));
}
