import { answerCommands } from '../decisions/answer-hint.js';
import { handleOf } from '../decisions/ask-handle.js';
import type { AskNotice } from '../notify/ask-notice.js';
import type { Execution, Run } from '../types.js';

/** The notice for an ask: what it is, how long it has waited, the commands that answer it. */
export function askNotice(event: AskNotice['event'], run: Run, exec: Execution, now: number): AskNotice {
  return {
    event,
    run: run.id,
    spec: run.spec,
    call: exec.key,
    ask: exec.ask,
    handle: handleOf(exec),
    awaiting: exec.awaiting ?? 'input',
    agent: exec.agent ?? '_checkpoint',
    question: exec.waitingFor ?? '',
    // Each command names the ask by its handle: it answers this ask, never a newer one.
    answer_with: answerCommands(exec),
    waited_seconds: Math.max(0, Math.round((now - exec.updatedAt) / 1000)),
    project: run.workspace,
    at: new Date(now).toISOString(),
  };
}
