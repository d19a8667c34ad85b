import { callDecisions } from '../decisions/call-decisions.js';
import { buildAnswer } from '../decisions/build-answer.js';
import { describeEntry } from '../notify/parse-target.js';
import { ShopError } from '../errors.js';
import type { TimerEffect } from '../store/store.js';
import type { Execution, Run, Timer } from '../types.js';
import { duration } from './ask-timers.js';
import { sendAskNotice } from './ask-notice.js';
import type { EnginePorts } from './ports.js';
import { holdIsLive } from './session-hold.js';

type Effect = TimerEffect & { notify?: { targets: string[]; event: 'reminder' | 'escalation' | 'timeout' } };

/**
 * Fires the run's due timers, each in one transaction with what it does; then tells the
 * people concerned. Only the run's owner calls this. Says how many took effect (a timer of
 * an ask answered meanwhile does nothing) and whether the run ended.
 */
export async function fireDueTimers(
  ports: EnginePorts,
  run: Run,
  token: string,
): Promise<{ fired: number; ended: boolean }> {
  const now = ports.clock.now();
  let ended = false;
  let fired = 0;
  for (const timer of await ports.store.dueTimers(now, [run.id])) {
    // A call's own wait (sleep): the driver's look at the call fires it, as it hands the call its result.
    if (timer.kind === 'wake') continue;
    const exec = await ports.store.getExecution(run.id, timer.key);
    if (!exec) continue;
    // A person is in the call's session (shop continue) answering it: its timeout waits until
    // they leave (it stays due, looked at again on the next check), rather than end the run under them.
    if (timer.kind === 'timeout' && exec.hold?.kind === 'continue' && holdIsLive(ports, exec.hold)) continue;
    // Someone said "I'm on it": reminders and escalation wait until the claim is released or
    // ages out (put off in the store, which checks the claim again); the timeout does not.
    if (timer.kind !== 'timeout' && exec.claim && (await ports.store.putOffTimer(token, timer))) continue;
    const effect = timerEffect(timer, exec, now);
    if (!(await ports.store.fireTimer(token, timer, effect))) continue;
    fired++;
    if (effect.end) ended = true;
    if (effect.notify) await sendAskNotice(ports, effect.notify.targets, effect.notify.event, run, exec, now);
  }
  return { fired, ended };
}

/** What a due timer does to its ask (pure): tell people, end the run, or answer with the defaults. */
function timerEffect(timer: Timer, exec: Execution, now: number): Effect {
  const after = duration(timer.data.after_seconds ?? Math.round((now - exec.updatedAt) / 1000));
  const targets = timer.data.targets ?? [];
  const at = { key: timer.key, actor: 'system:timer', channel: 'engine' as const };
  if (timer.kind !== 'timeout') {
    const event = {
      ...at,
      type: timer.kind === 'remind' ? 'reminded' : 'escalated',
      data: { after, to: targets.map(describeEntry) },
    };
    return { event, notify: { targets, event: timer.kind === 'remind' ? 'reminder' : 'escalation' } };
  }
  const onTimeout = timer.data.on_timeout ?? 'stuck';
  const event = { ...at, type: 'timed_out', data: { after, on_timeout: onTimeout } };
  if (onTimeout === 'notify_again') {
    const every = (timer.data.after_seconds ?? 3600) * 1000;
    return {
      event,
      next: { kind: 'timeout', dueAt: now + every, data: timer.data },
      notify: { targets, event: 'timeout' },
    };
  }
  if (onTimeout === 'default') {
    const answer = defaultAnswer(exec);
    if (typeof answer !== 'string')
      return {
        event,
        answer: {
          runId: exec.runId,
          key: exec.key,
          ask: exec.ask,
          ...answer,
          responder: 'system:timeout',
          channel: 'engine',
        },
      };
    return { event, end: stuckEnd(`no answer after ${after}, and ${answer}`) };
  }
  return { event, end: stuckEnd(`no answer after ${after}`) };
}

function stuckEnd(reason: string) {
  return {
    status: 'stuck' as const,
    reason,
    event: { type: 'stuck', actor: 'system:timeout', channel: 'engine' as const, data: { reason } },
  };
}

/** The ask answered with its decisions' defaults, or why it cannot be (a string). */
function defaultAnswer(exec: Execution) {
  const decisions = exec.kind === 'pause' ? callDecisions(exec) : [];
  if (!decisions.length)
    return exec.kind === 'pause' ? 'a pause without decisions has no default' : `${exec.agent}'s ask has no default`;
  const answers = Object.fromEntries(
    decisions.filter((d) => d.default !== undefined && d.default !== null).map((d) => [d.id, d.default]),
  );
  try {
    return buildAnswer(exec, { answers, message: 'the defaults, on timeout' });
  } catch (e) {
    if (e instanceof ShopError)
      return `the defaults do not answer it (${e.message.replace(/^invalid answers, nothing recorded: /, '')})`;
    throw e;
  }
}
