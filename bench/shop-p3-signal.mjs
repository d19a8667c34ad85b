// P3 — how soon a live driver takes in an answer another process recorded. Shop only:
// LangGraph's interrupts are resumed by the caller itself.
//
// The shape: a workflow of `run("worker", …)` calls driven by a live driver (driveRun with
// wait: true, as `shop run --wait` or `shop watch`). The stub agent reports NEEDS_HUMAN, so
// each call waits; the driver sleeps on its SignalWatcher (chokidar on .shop/signals, plus a
// rescan every 500 ms). Then the bench answers the ask as `shop signal --status DONE` does
// (core's recordAnswer: first answer wins, the owner woken) and measures from the answer
// committed until the driver has completed the execution in the store (the wake-up, the
// answer read, the completing transaction). An agent's signal file no longer closes a waiting
// ask (only a person does), so this is the path every answer takes.
import { recordAnswer } from '../packages/core/dist/operations/answer.js';
import { driveRun } from '../packages/core/dist/engine/drive-run.js';
import { loopWorkflow, shopProject, startRun, stubAgent } from './shop-project.mjs';

/** Before writing, give the driver time to suspend and sleep on its watcher. */
const SETTLE_MS = 20;

/** Milliseconds from each answer recorded to its execution completed, `samples` of them. */
export async function signalLatencies(samples) {
  const written = new Map();
  const latencies = [];
  const notifier = {
    notify(n) {
      if (n.type !== 'waiting') return;
      const exec = n.execution;
      setTimeout(async () => {
        await recordAnswer(shop.ports, exec, { status: 'DONE', message: 'answered by the bench' }, 'signal', 'bench');
        written.set(exec.key, performance.now());
      }, SETTLE_MS);
    },
  };
  // One call more than the samples: the first also waits for the watcher to start, so it is dropped.
  const shop = shopProject(
    'shop-p3-',
    loopWorkflow(samples + 1),
    stubAgent('NEEDS_HUMAN', 'the bench answers'),
    notifier,
  );
  const store = shop.ports.store;
  const complete = store.completeExecution.bind(store);
  store.completeExecution = async (token, runId, key, ...rest) => {
    const delivered = await complete(token, runId, key, ...rest);
    if (written.has(key) && key !== '1') latencies.push(performance.now() - written.get(key));
    return delivered;
  };
  try {
    const { run, owner } = await startRun(shop);
    // A driver that never sees its answers would wait forever: give up (interrupted) instead.
    const giveUp = AbortSignal.timeout(30_000 + samples * 1_000);
    const outcome = await driveRun(shop.ports, run.id, { wait: true, signal: giveUp }, owner);
    if (outcome.status !== 'completed')
      throw new Error(`the P3 run ended ${outcome.status}${giveUp.aborted ? ' (timed out)' : ''}`);
  } finally {
    await store.close();
  }
  if (latencies.length !== samples) throw new Error(`P3 measured ${latencies.length} of ${samples} calls`);
  return latencies;
}
