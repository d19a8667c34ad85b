import { fingerprint, type HostRequest } from '../lua/requests.js';
import type { Execution, Run } from '../types.js';
import { value, type CallResult } from './outcome.js';
import type { EnginePorts } from './ports.js';

/** pause(): record the ask and wait for a person (answers come only through Shop's channels). */
export async function startPause(ports: EnginePorts, run: Run, key: string, req: HostRequest & { type: 'pause' }, rec: Execution | undefined): Promise<CallResult> {
  if (rec) return { kind: 'suspend', execution: rec };
  const { store } = ports;
  await store.startExecution({
    runId: run.id, key, kind: 'pause', agent: '_checkpoint', fingerprint: fingerprint(req), sessionId: null,
    cwd: run.workspace, prompt: req.spec.message, request: req.spec, signalPath: null,
  });
  await store.markWaiting(run.id, key, req.spec.message, 'checkpoint');
  return { kind: 'suspend', execution: (await store.getExecution(run.id, key))! };
}

/** sh() and now(): run once, record, answer from the log ever after. */
export async function recordOnce(
  ports: EnginePorts, run: Run, key: string, req: HostRequest & { type: 'sh' | 'now' }, rec: Execution | undefined, effect: () => Promise<unknown>,
): Promise<CallResult> {
  const { store } = ports;
  if (rec) await store.restartExecution(run.id, key);
  else {
    await store.startExecution({
      runId: run.id, key, kind: req.type, agent: null, fingerprint: fingerprint(req), sessionId: null,
      cwd: run.workspace, prompt: req.type === 'sh' ? req.cmd : null, request: req, signalPath: null,
    });
  }
  const result = await effect();
  await store.completeExecution(run.id, key, result);
  return value(result);
}
