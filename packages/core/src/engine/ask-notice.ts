import { answerUrl } from '../access/public-url.js';
import { answerCommands } from '../decisions/answer-hint.js';
import { handleOf } from '../decisions/ask-handle.js';
import type { AskNotice } from '../notify/ask-notice.js';
import type { Execution, Run } from '../types.js';
import type { EnginePorts } from './ports.js';

/** The notice for an ask: what it is, how long it has waited, the commands (and the link) that answer it. */
function askNotice(
  event: AskNotice['event'],
  run: Run,
  exec: Execution,
  now: number,
  answerLink: string | null = null,
): AskNotice {
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
    answer_url: answerLink,
    waited_seconds: Math.max(0, Math.round((now - exec.updatedAt) / 1000)),
    project: run.workspace,
    at: new Date(now).toISOString(),
  };
}

/**
 * Tells `targets` about an ask. Whichever process drives the run sends it, so the answer link
 * comes from the store: made (a fresh one, expiring from now) when a public URL is recorded there.
 */
export async function sendAskNotice(
  ports: EnginePorts,
  targets: string[],
  event: AskNotice['event'],
  run: Run,
  exec: Execution,
  now: number,
): Promise<void> {
  if (!targets.length) return;
  const link = await answerUrl(ports.store, ports.clock, { runId: run.id, key: exec.key, ask: Math.max(1, exec.ask) });
  ports.notices.send(targets, askNotice(event, run, exec, now, link));
}
