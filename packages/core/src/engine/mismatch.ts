import { NonDeterminismError } from '../errors.js';
import type { AnyCall } from '../lua/calls/definition.js';
import type { CallRequest } from '../lua/requests.js';
import type { Store } from '../store/store.js';
import type { Execution, ReplayRecord } from '../types.js';

const shown = (fingerprint: string) => fingerprint.split(' #')[0];

/**
 * A non-determinism error that says what changed: for the same agent, the prompt or the
 * options; for the same pause, its decisions; for a command, the command (each call's
 * definition knows its own difference).
 */
export async function explainMismatch(
  store: Store,
  runId: number,
  runPrompt: string,
  key: string,
  req: CallRequest,
  def: AnyCall,
): Promise<NonDeterminismError> {
  const rec = await store.getExecution(runId, key);
  if (!rec) return new NonDeterminismError(key, 'nothing', 'makes a call');
  const [recorded, attempted] = difference(rec, req, def, runPrompt);
  return new NonDeterminismError(key, recorded, `calls ${attempted}`);
}

function difference(rec: Execution, req: CallRequest, def: AnyCall, runPrompt: string): [string, string] {
  return def.difference?.(rec, req, runPrompt) ?? [shown(rec.fingerprint), def.quoted(req)];
}

/** A recorded call the script no longer reaches: it ended, or goes another way, before it. */
export function unreached(rec: ReplayRecord, how: string): NonDeterminismError {
  return new NonDeterminismError(rec.key, shown(rec.fingerprint), how);
}
