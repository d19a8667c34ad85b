// Shop's side of the PostgreSQL comparison (./compare.mjs), the twin of ../dbos/side.mjs.
// Workers are `shop watch` processes (the real binary, SHOP_DATABASE_URL set, each with its
// own SHOP_HOSTNAME as if on its own machine); runs are recorded by the bench through core
// (as `shop run` would, then let go, so the workers share them); answers are `shop approve`
// processes. Each scenario gets a fresh project and a fresh database of the cluster.
import { cpuWindow } from './machine-cpu.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createRun } from '../../packages/core/dist/engine/drive-run.js';
import { nodePorts } from '../../packages/core/dist/engine/node-ports.js';
import { findProject } from '../../packages/core/dist/project/project.js';
import { openStore } from '../../packages/core/dist/store/open-store.js';
import { AGENT_HOST_NAME } from '../../packages/core/dist/agents/agent-host-source.js';
import { shopBin } from '../shop-project.mjs';
import { nowUs, perStepMs, readSteps } from './step-stub.mjs';
import { sleep, startProcess, stopAll, until } from './processes.mjs';

const require = createRequire(import.meta.url);

const WORKFLOWS = {
  steps: 'function workflow(tag)\n  for i = 1, 10 do run("worker", tag .. " " .. i) end\n  return "done"\nend\n',
  gated:
    'function workflow(tag)\n  run("worker", tag .. " before")\n  pause("Go on?")\n  run("worker", tag .. " after")\n  return "done"\nend\n',
};

/**
 * A temp project whose agent is the shared stub, on `url` (PostgreSQL) or, with no url, on
 * its own SQLite file (BENCH_PG_SHOP_SQLITE=1).
 */
async function project(ctx, url) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-bench-pg-'));
  mkdirSync(join(dir, 'workflows'));
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'agents', 'worker.md'), `---\ncommand: ["${ctx.stub}", "{prompt}"]\n---\nWork.\n`);
  for (const [name, source] of Object.entries(WORKFLOWS)) writeFileSync(join(dir, 'workflows', `${name}.lua`), source);
  // Shop's lease (the takeover's bound) is 15 s by default; SHOP_LEASE_SECONDS overrides it here too.
  const env = {
    ...process.env,
    SHOP_HOME: '',
    SHOP_LEASE_SECONDS: process.env.SHOP_LEASE_SECONDS ?? '15',
    BENCH_STEP_LOG: ctx.log,
    ...(url ? { SHOP_DATABASE_URL: url } : {}),
  };
  delete env.SHOP_DEBUG;
  if (!url) delete env.SHOP_DATABASE_URL;
  const p = findProject(dir, {});
  const ports = nodePorts(p, { notifier: { notify() {} }, binDir: null, store: await openStore(p, env) });
  return { dir, env, ports, url, query: url ? pgQuery(url) : sqliteQuery(p.dbFile) };
}

function pgQuery(url) {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return Object.assign(async (sql) => (await pool.query(sql)).rows, { close: () => pool.end() });
}

function sqliteQuery(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true });
  return Object.assign(async (sql) => db.prepare(sql).all(), { close: async () => db.close() });
}

async function close(shop) {
  await shop.ports.store.close();
  await shop.query.close();
}

async function withProject(ctx, name, fn) {
  const url = ctx.sqlite ? null : await ctx.cluster.createDatabase(name);
  const shop = await project(ctx, url);
  try {
    return await fn(shop);
  } finally {
    await close(shop);
    rmSync(shop.dir, { recursive: true, force: true });
  }
}

function watch(shop, host, extraEnv = {}) {
  const env = { ...shop.env, SHOP_HOSTNAME: host, ...extraEnv };
  return startProcess([process.execPath, shopBin, 'watch'], {
    cwd: shop.dir,
    env,
    ready: /shop watch: watching/,
    what: `shop watch (${host})`,
  });
}

/** Records a new run of `workflow` as `shop run` does, then lets it go for the workers to take. */
async function submit(shop, workflow, tag) {
  const { run, owner } = await createRun(shop.ports, {
    spec: workflow,
    workflowPath: join(shop.dir, 'workflows', `${workflow}.lua`),
    prompt: tag,
    workspace: shop.dir,
    actor: 'bench',
  });
  await owner.release(false);
  return run.id;
}

const count = async (shop, where) => Number((await shop.query(`SELECT count(*) AS n FROM runs WHERE ${where}`))[0].n);

/**
 * What a process is, for the CPU split: the `shop watch` workers, their agent hosts (which
 * start each step's process), PostgreSQL's processes, this bench.
 */
const kindOf = (p) => {
  if (p.pid === process.pid) return 'bench';
  if (p.comm === 'postgres') return 'postgres';
  if (p.cmd.includes(`${shopBin} watch`)) return 'workers';
  if (p.cmd.includes(AGENT_HOST_NAME)) return 'agent hosts';
  return null;
};

/** The twin of DBOS's throughput: `n` runs of 10 stub steps recorded at once, `workers` shop watch processes. */
export async function throughput(ctx, workers, n, steps) {
  return withProject(ctx, `shop_tp_${workers}_${ctx.seq()}`, async (shop) => {
    const procs = [];
    try {
      // As on DBOS's side: the first worker alone, the others at once.
      procs.push(await watch(shop, 'bench-0'));
      procs.push(...(await Promise.all(Array.from({ length: workers - 1 }, (_, i) => watch(shop, `bench-${i + 1}`)))));
      const tag = `s${ctx.seq()}`;
      const cpu = cpuWindow(kindOf);
      const started = performance.now();
      for (let i = 0; i < n; i++) await submit(shop, 'steps', `${tag}-${i}`);
      await until(async () => (await count(shop, "status = 'completed'")) === n, {
        everyMs: 10,
        what: `${n} Shop runs to complete`,
      });
      const seconds = (performance.now() - started) / 1000;
      const cpuUsed = cpu.end();
      const failed = await count(shop, "status <> 'completed'");
      if (failed) throw new Error(`${failed} Shop runs did not complete`);
      const mine = new Map([...readSteps(ctx.log)].filter(([k]) => k.startsWith(`${tag}-`)));
      return {
        perSecond: n / seconds,
        stepMs: perStepMs(mine, steps),
        cpuMs: cpuUsed?.totalMs ?? null,
        cpuByKind: cpuUsed?.byKind ?? null,
        spread: await spread(shop),
      };
    } finally {
      await stopAll(procs);
    }
  });
}

/** Runs per worker, most first: the worker (host, pid) that started each run's first call, from the audit trail. */
async function spread(shop) {
  const first = new Map();
  for (const e of await shop.query(
    "SELECT run_id, data FROM events WHERE type = 'execution_started' ORDER BY run_id, id",
  )) {
    if (!first.has(e.run_id)) first.set(e.run_id, e.data ?? '?');
  }
  const per = new Map();
  for (const who of first.values()) per.set(who, (per.get(who) ?? 0) + 1);
  return [...per.values()].sort((a, b) => b - a);
}

/**
 * The twin of DBOS's answers: a run waits at pause() held by a shop watch; `shop approve <id>`
 * (a new process) answers it. From the approve's spawn, and from the answer recorded
 * (answers.answered_at), to the next step's start.
 */
export async function answers(ctx, samples) {
  return withProject(ctx, `shop_answer_${ctx.seq()}`, async (shop) => {
    const procs = [await watch(shop, 'bench-answer')];
    const fromSpawn = [];
    const fromCommit = [];
    try {
      const tag = `a${ctx.seq()}`;
      for (let i = 0; i < samples; i++) {
        const name = `${tag}-${i}`;
        const id = await submit(shop, 'gated', name);
        await until(async () => (await count(shop, `id = ${id} AND status = 'waiting_human'`)) === 1, {
          what: `run ${id} to wait`,
        });
        await sleep(ctx.settleMs);
        const spawned = nowUs();
        await approve(shop, id);
        const after = await until(
          () =>
            readSteps(ctx.log)
              .get(name)
              ?.find((s) => s.step === 'after')?.us,
          { what: `run ${id} to resume` },
        );
        const [answer] = await shop.query(`SELECT answered_at FROM answers WHERE run_id = ${id}`);
        fromSpawn.push((after - spawned) / 1000);
        fromCommit.push((after - Number(answer.answered_at) * 1000) / 1000);
      }
      return { fromSpawn, fromCommit };
    } finally {
      await stopAll(procs);
    }
  });
}

function approve(shop, id) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [shopBin, 'approve', String(id)], {
      cwd: shop.dir,
      env: shop.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`shop approve ${id} exited ${code}: ${out.slice(-800)}`)),
    );
  });
}

/**
 * The twin of DBOS's takeover: two shop watch workers as two machines (SHOP_HOSTNAME), a run
 * of slow steps; kill -9 of the worker driving it, mid-step: from the kill to the run's next
 * step started by the survivor (its lease lapses: SHOP_LEASE_SECONDS, default 15). A new
 * worker replaces the killed one after each sample.
 */
export async function takeover(ctx, samples) {
  return withProject(ctx, `shop_takeover_${ctx.seq()}`, async (shop) => {
    const slow = { BENCH_STEP_SLEEP: String(ctx.slowStepMs / 1000) };
    const procs = [await watch(shop, 'bench-a', slow), await watch(shop, 'bench-b', slow)];
    const live = [...procs];
    const took = [];
    let hosts = 2;
    try {
      const tag = `t${ctx.seq()}`;
      for (let i = 0; i < samples; i++) {
        const name = `${tag}-${i}`;
        const id = await submit(shop, 'steps', name);
        await until(
          () =>
            readSteps(ctx.log)
              .get(name)
              ?.some((s) => s.step === '3'),
          { what: `run ${id} to reach step 3` },
        );
        await sleep(ctx.slowStepMs / 3);
        const [row] = await shop.query(`SELECT owner_pid FROM runs WHERE id = ${id}`);
        const victim = live.find((p) => p.pid === Number(row.owner_pid));
        if (!victim) throw new Error(`run ${id} is owned by pid ${row.owner_pid}, not by one of the bench's workers`);
        const killed = nowUs();
        await victim.crash();
        live.splice(live.indexOf(victim), 1);
        const next = await until(
          () =>
            readSteps(ctx.log)
              .get(name)
              .find((s) => s.us > killed)?.us,
          { what: `run ${id} to be taken over`, timeoutMs: 120_000 },
        );
        took.push((next - killed) / 1000);
        await until(async () => (await count(shop, `id = ${id} AND status = 'completed'`)) === 1, {
          what: `run ${id} to complete`,
          timeoutMs: 120_000,
        });
        const replacement = await watch(shop, `bench-${String.fromCharCode(97 + hosts++)}`, slow);
        procs.push(replacement);
        live.push(replacement);
      }
      return { took };
    } finally {
      await stopAll(procs);
    }
  });
}

/**
 * The twin of DBOS's restart: the only worker of a run of slow steps is killed (-9) mid-step
 * and started again at once on the same machine (a supervisor's restart): from the kill to
 * the run's next step. The new worker sees the old owner's pid gone and takes the run without
 * waiting for its lease.
 */
export async function restart(ctx, samples) {
  return withProject(ctx, `shop_restart_${ctx.seq()}`, async (shop) => {
    const slow = { BENCH_STEP_SLEEP: String(ctx.slowStepMs / 1000) };
    let worker = await watch(shop, 'bench-r', slow);
    const procs = [worker];
    const took = [];
    try {
      const tag = `r${ctx.seq()}`;
      for (let i = 0; i < samples; i++) {
        const name = `${tag}-${i}`;
        const id = await submit(shop, 'steps', name);
        await until(
          () =>
            readSteps(ctx.log)
              .get(name)
              ?.some((s) => s.step === '3'),
          { what: `run ${id} to reach step 3` },
        );
        await sleep(ctx.slowStepMs / 3);
        const killed = nowUs();
        await worker.crash();
        worker = await watch(shop, 'bench-r', slow);
        procs.push(worker);
        const next = await until(
          () =>
            readSteps(ctx.log)
              .get(name)
              .find((s) => s.us > killed)?.us,
          { what: `run ${id} to be taken again`, timeoutMs: 120_000 },
        );
        took.push((next - killed) / 1000);
        await until(async () => (await count(shop, `id = ${id} AND status = 'completed'`)) === 1, {
          what: `run ${id} to complete`,
          timeoutMs: 120_000,
        });
      }
      return { took };
    } finally {
      await stopAll(procs);
    }
  });
}
