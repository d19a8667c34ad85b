import type { Store } from '../store/store.js';
import type { Execution } from '../types.js';
import { parseSignal, readSignal, type SignalRead } from './signal.js';

/**
 * What the call's agent reported for its current attempt: its signal file when this machine
 * has it, else the report `shop report` recorded in the store for that attempt (the agent ran
 * on another machine, or its file could not be written) — no shared disk needed.
 */
export async function readReport(
  store: Pick<Store, 'getReport'>,
  exec: Pick<Execution, 'runId' | 'key' | 'signalPath'>,
): Promise<SignalRead> {
  if (!exec.signalPath) return { kind: 'none' };
  const file = readSignal(exec.signalPath);
  if (file.kind !== 'none') return file;
  const body = await store.getReport(exec.runId, exec.key, exec.signalPath);
  return body === null ? { kind: 'none' } : parseSignal(body);
}
