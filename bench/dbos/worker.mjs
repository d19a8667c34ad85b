// One DBOS Transact executor (a worker process) for the PostgreSQL comparison:
//   node worker.mjs   (env: BENCH_PG_URL, BENCH_EXECUTOR, BENCH_STUB, BENCH_STEP_LOG)
// It registers the bench's workflows and its queue, launches DBOS (which first recovers the
// workflows left PENDING under its executor id), prints "ready" and works the queue until
// SIGTERM. Every step runs the shared stub (../pg/step-stub.mjs) as a child process.
import { execFile } from 'node:child_process';
import { DBOS } from '@dbos-inc/dbos-sdk';

const { BENCH_PG_URL: url, BENCH_EXECUTOR: executorID, BENCH_STUB: stub } = process.env;
/** How often an idle executor polls the bench queue (DBOS's default is 1,000 ms; lowered for latency). */
export const QUEUE_POLL_MS = 50;

function stubStep(tag) {
  return new Promise((resolve, reject) => {
    execFile(stub, [tag], (err, stdout) => (err ? reject(err) : resolve(stdout.length)));
  });
}

/** The throughput workflow: `steps` stub steps in a row, each a durable DBOS step. */
async function steps(tag, count) {
  for (let i = 1; i <= count; i++) await DBOS.runStep(() => stubStep(`${tag} ${i}`), { name: `step${i}` });
  return count;
}

/** The answer workflow: one step, wait for a message on topic "answer", one step after it. */
async function gated(tag) {
  await DBOS.runStep(() => stubStep(`${tag} before`), { name: 'before' });
  const answer = await DBOS.recv('answer', 600);
  if (answer === null) throw new Error(`${tag}: no answer in 600 s`);
  await DBOS.runStep(() => stubStep(`${tag} after`), { name: 'after' });
  return answer;
}

DBOS.registerWorkflow(steps, { name: 'steps' });
DBOS.registerWorkflow(gated, { name: 'gated' });
DBOS.setConfig({ name: 'shop-bench', applicationVersion: '1', systemDatabaseUrl: url, executorID, logLevel: 'warn' });
await DBOS.launch();
await DBOS.registerQueue('bench', { minPollingIntervalMs: QUEUE_POLL_MS, onConflict: 'always_update' });
process.on('SIGTERM', () => DBOS.shutdown().finally(() => process.exit(0)));
process.stdout.write('ready\n');
