import { readSignal } from '../signals/signal.js';
import type { Answer, Execution, Run } from '../types.js';
import type { EnginePorts } from './ports.js';

/** What a waiting call returns to Lua once a person (or the agent, after talking to one) answered. */
export async function checkAnswer(ports: EnginePorts, run: Run, exec: Execution): Promise<{ value: unknown; by: string | null } | null> {
  const answer = await ports.store.getAnswer(run.id, exec.key);
  let result: unknown = null;
  let by: string | null = null;
  if (answer) {
    result = exec.kind === 'pause' ? pauseResult(answer) : agentResultFromAnswer(answer, exec);
    by = answer.responder;
  } else if (exec.kind === 'run' && exec.signalPath) {
    // The person talked to the agent in its own session and the agent reported anew.
    const read = readSignal(exec.signalPath);
    if (read.kind !== 'ok' || read.signal.status === 'NEEDS_HUMAN') return null;
    result = { ...read.signal, session_id: exec.sessionId };
    by = exec.agent;
  } else {
    return null;
  }
  await ports.store.completeExecution(run.id, exec.key, result);
  return { value: result, by };
}

export function pauseResult(a: Answer) {
  const go = a.status === 'CONTINUE';
  return {
    continue: go,
    status: a.status,
    reason: go ? null : (a.message ?? 'stopped by a person'),
    message: a.message,
    responder: a.responder,
  };
}

function agentResultFromAnswer(a: Answer, exec: Execution) {
  return { status: a.status, summary: a.message ?? undefined, responder: a.responder, session_id: exec.sessionId };
}
