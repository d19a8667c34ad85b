// DBOS Transact's side of the PostgreSQL comparison (../pg/compare.mjs), the twin of
// ../pg/shop-side.mjs. Workers are `node worker.mjs` processes (executors with their own
// ids) working one queue; the bench enqueues and answers through DBOSClient, as an
// application's other processes would. Each scenario gets a fresh database of the cluster.
import { cpuWindow } from '../pg/machine-cpu.mjs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { nowUs, readSteps, perStepMs } from '../pg/step-stub.mjs';
import { startProcess, stopAll, until, sleep } from '../pg/processes.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const workerScript = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const sendScript = fileURLToPath(new URL('./send.mjs', import.meta.url));

function worker(ctx, url, executor, extraEnv = {}) {
  const env = {
    ...process.env,
    BENCH_PG_URL: url,
    BENCH_EXECUTOR: executor,
    BENCH_STUB: ctx.stub,
    BENCH_STEP_LOG: ctx.log,
    ...extraEnv,
  };
  return startProcess([process.execPath, workerScript], {
    cwd: dir,
    env,
    ready: /^ready$/m,
    what: `DBOS executor ${executor}`,
  });
}

async function withDb(ctx, name, fn) {
  const url = await ctx.cluster.createDatabase(name);
  const db = new pg.Pool({ connectionString: url, max: 2 });
  const client = await DBOSClient.create({ systemDatabaseUrl: url, applicationName: 'shop-bench' });
  try {
    return await fn({ url, db, client });
  } finally {
    await client.destroy();
    await db.end();
  }
}

const count = async (db, sql, params) => Number((await db.query(sql, params)).rows[0].n);

/**
 * `n` workflows of `steps` stub steps enqueued at once on `workers` executors: workflows per
 * second from the first enqueue to the last SUCCESS, and each workflow's per-step latency.
 */
/** What a process is, for the CPU split: DBOS's executors, PostgreSQL's processes, this bench. */
const kindOf = (p) =>
  p.pid === process.pid
    ? 'bench'
    : p.comm === 'postgres'
      ? 'postgres'
      : p.cmd.includes(workerScript)
        ? 'workers'
        : null;

export async function throughput(ctx, workers, n, steps) {
  return withDb(ctx, `dbos_tp_${workers}_${ctx.seq()}`, async ({ url, db, client }) => {
    const procs = [];
    try {
      // The first launch migrates the fresh database alone: DBOS 5.3's migrations race when
      // several executors launch on an empty database at once (duplicate pg_type).
      procs.push(await worker(ctx, url, 'tp0'));
      procs.push(...(await Promise.all(Array.from({ length: workers - 1 }, (_, i) => worker(ctx, url, `tp${i + 1}`)))));
      const tag = `d${ctx.seq()}`;
      const cpu = cpuWindow(kindOf);
      const started = performance.now();
      for (let i = 0; i < n; i++)
        await client.enqueue({ workflowName: 'steps', queueName: 'bench', appVersion: '1' }, `${tag}-${i}`, steps);
      await until(
        async () =>
          (await count(
            db,
            "SELECT count(*) AS n FROM dbos.workflow_status WHERE name = 'steps' AND status = 'SUCCESS'",
          )) === n,
        { everyMs: 10, what: `${n} DBOS workflows to succeed` },
      );
      const seconds = (performance.now() - started) / 1000;
      const cpuUsed = cpu.end();
      const mine = new Map([...readSteps(ctx.log)].filter(([k]) => k.startsWith(`${tag}-`)));
      const per = await db.query(
        "SELECT count(*) AS n FROM dbos.workflow_status WHERE name = 'steps' GROUP BY executor_id ORDER BY 1 DESC",
      );
      return {
        perSecond: n / seconds,
        stepMs: perStepMs(mine, steps),
        cpuMs: cpuUsed?.totalMs ?? null,
        cpuByKind: cpuUsed?.byKind ?? null,
        spread: per.rows.map((r) => Number(r.n)),
      };
    } finally {
      await stopAll(procs);
    }
  });
}

/**
 * An answer from another process → the workflow resumed: a `gated` workflow waits in
 * DBOS.recv; `node send.mjs` (a new process: DBOSClient.send) answers it. Per sample: from
 * the answering process's spawn, and from its call to send, to the next step's start.
 */
export async function answers(ctx, samples) {
  return withDb(ctx, `dbos_answer_${ctx.seq()}`, async ({ url, client }) => {
    const procs = [await worker(ctx, url, 'answer')];
    const fromSpawn = [];
    const fromCommit = [];
    try {
      const tag = `g${ctx.seq()}`;
      for (let i = 0; i < samples; i++) {
        const id = `${tag}-${i}`;
        await client.enqueue({ workflowName: 'gated', queueName: 'bench', workflowID: id, appVersion: '1' }, id);
        await until(
          () =>
            readSteps(ctx.log)
              .get(id)
              ?.some((s) => s.step === 'before'),
          { what: `${id} to start` },
        );
        await sleep(ctx.settleMs);
        const spawned = nowUs();
        const committed = Number(await runSend(url, id));
        const after = await until(
          () =>
            readSteps(ctx.log)
              .get(id)
              ?.find((s) => s.step === 'after')?.us,
          { what: `${id} to resume` },
        );
        fromSpawn.push((after - spawned) / 1000);
        fromCommit.push((after - committed) / 1000);
      }
      return { fromSpawn, fromCommit };
    } finally {
      await stopAll(procs);
    }
  });
}

function runSend(url, id) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [sendScript, id], {
      cwd: dir,
      env: { ...process.env, BENCH_PG_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) =>
      code === 0
        ? resolve(out.trim().split('\n').at(-1))
        : reject(new Error(`send.mjs exited ${code}: ${out.slice(-800)}`)),
    );
  });
}

/**
 * kill -9 of the executor running a workflow of slow steps (BENCH_STEP_SLEEP), mid-step.
 * With `survivorWaitMs`: once, with a second executor alive, watched that long — the
 * open-source library has no failure detection (DBOS Conductor, the paid service, has), so
 * the survivor is expected never to take the workflow; then the victim is restarted to finish
 * it. Without: `samples` times, the victim restarted at once with its executor id (as a
 * supervisor would; DBOS recovers a dead executor's workflows only when a process with its id
 * launches): from the kill to the workflow's next step.
 */
export async function takeover(ctx, samples, survivorWaitMs = null) {
  return withDb(ctx, `dbos_takeover_${ctx.seq()}`, async ({ url, db, client }) => {
    const slow = { BENCH_STEP_SLEEP: String(ctx.slowStepMs / 1000) };
    let victim = await worker(ctx, url, 'victim', slow);
    const procs = [victim];
    const restarts = [];
    let survivorTook = null;
    try {
      const tag = `k${ctx.seq()}`;
      const rounds = survivorWaitMs === null ? samples : 1;
      for (let i = 0; i < rounds; i++) {
        const id = `${tag}-${i}`;
        await client.enqueue({ workflowName: 'steps', queueName: 'bench', workflowID: id, appVersion: '1' }, id, 10);
        await until(
          () =>
            readSteps(ctx.log)
              .get(id)
              ?.some((s) => s.step === '1'),
          { what: `${id} to start on the victim` },
        );
        if (survivorWaitMs !== null) procs.push(await worker(ctx, url, 'survivor', slow));
        await until(
          () =>
            readSteps(ctx.log)
              .get(id)
              ?.some((s) => s.step === '3'),
          { what: `${id} to reach step 3` },
        );
        await sleep(ctx.slowStepMs / 3);
        const killed = nowUs();
        await victim.crash();
        const progressed = () =>
          readSteps(ctx.log)
            .get(id)
            .find((s) => s.us > killed)?.us;
        if (survivorWaitMs !== null) {
          await sleep(survivorWaitMs);
          survivorTook = progressed() ? (progressed() - killed) / 1000 : null;
        }
        victim = await worker(ctx, url, 'victim', slow);
        procs.push(victim);
        const next = await until(progressed, { what: `${id} to progress after the restart`, timeoutMs: 60_000 });
        if (survivorWaitMs === null) restarts.push((next - killed) / 1000);
        await until(
          async () =>
            (await count(
              db,
              'SELECT count(*) AS n FROM dbos.workflow_status WHERE workflow_uuid = $1 AND status = $2',
              [id, 'SUCCESS'],
            )) === 1,
          { what: `${id} to succeed`, timeoutMs: 60_000 },
        );
      }
      return { restarts, survivorTook, survivorWaitMs };
    } finally {
      await stopAll(procs);
    }
  });
}
