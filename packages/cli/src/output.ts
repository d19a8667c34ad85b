import { ExitCode } from '@shop/core/errors';
import type { DriveOutcome } from '@shop/core/engine/outcome';
import type { Notice, Notifier } from '@shop/core/engine/ports';
import type { Execution } from '@shop/core/types';
import { VERDICT_MATRIX, type Awaiting, type VerdictEffect } from '@shop/core/decisions/verdicts';

/** Prints the engine's progress as it happens. */
export function printingNotifier(out: (line: string) => void): Notifier {
  return {
    notify(n: Notice) {
      switch (n.type) {
        case 'agent_started':
          return out(`  [${n.key}] ${n.agent} ${n.resumed ? 'resumed' : 'started'} (session ${n.sessionId})`);
        case 'agent_finished':
          return out(`  [${n.key}] ${n.agent} → ${n.status}${n.text ? `: ${firstLine(n.text)}` : ''}`);
        case 'waiting':
          return out(`  [${n.execution.key}] waiting for a person: ${firstLine(n.execution.waitingFor ?? '')}`);
        case 'resumed':
          return out(`  [${n.key}] answered${n.by ? ` by ${n.by}` : ''}; resuming`);
        case 'log':
          return out(`  log${n.key ? ` [${n.key}]` : ''}: ${n.message}`);
      }
    },
  };
}

/**
 * How to answer a waiting call, as exact commands (what each verdict does comes from the
 * matrix). With `several`, every command names the call (--call), as it must then.
 */
export function answerHint(runId: number, exec: Execution, several = false): string[] {
  const hint = answerLines(runId, exec);
  return several ? hint.map((l) => l.replace(new RegExp(`(shop \\w+ ${runId})`), `$1 --call ${exec.key}`)) : hint;
}

function answerLines(runId: number, exec: Execution): string[] {
  if (exec.kind === 'pause') {
    const spec = exec.request as { decisions?: { id: string }[] } | null;
    const ids = spec?.decisions?.map((d) => d.id) ?? [];
    return [
      `  decide here:  shop continue ${runId}`,
      ids.length ? `  scripted:     shop signal ${runId} --answers '{${ids.map((id) => `"${id}": …`).join(', ')}}'` : `  approve:      shop approve ${runId}`,
      `  stop it:      shop reject ${runId} "why"`,
    ];
  }
  const row = VERDICT_MATRIX[(exec.awaiting ?? 'input') as Awaiting] ?? VERDICT_MATRIX.input;
  const effect = (e: VerdictEffect) => (e.kind === 'close' ? `returns ${e.status} to the workflow` : e.kind === 'back' ? 'goes back to the agent' : 'not allowed');
  const lines = [`  talk to the agent: shop continue ${runId}`];
  if ((exec.awaiting ?? 'input') === 'input') lines.push(`  answer it:         shop answer ${runId} "…"`);
  else lines.push(`  approve:           shop approve ${runId} [--message "…"]   (${effect(row.approved)})`);
  if (row.rejected.kind !== 'invalid') lines.push(`  reject:            shop reject ${runId} "feedback"   (${effect(row.rejected)})`);
  return lines;
}

/** "run 3 is waiting for a person (input): coder asks: …", or with several asks "call 1/2/1: (input): …". */
export function describeWaiting(runId: number, exec: Execution, several = false): string {
  const who = exec.kind === 'pause' ? 'the workflow asks' : `${exec.agent} asks`;
  return `${several ? `call ${exec.key}:` : `run ${runId} is waiting for a person`} (${exec.awaiting ?? 'input'}): ${who}: ${exec.waitingFor ?? ''}`;
}

/** Prints where driving stopped and returns the exit code of DESIGN.md's contract. */
export function printOutcome(runId: number, outcome: DriveOutcome, out: (line: string) => void, err: (line: string) => void): number {
  switch (outcome.status) {
    case 'completed':
      out(`run ${runId} completed${outcome.result != null ? `: ${JSON.stringify(outcome.result)}` : ''}`);
      return ExitCode.ok;
    case 'waiting_human': {
      const several = outcome.waiting.length > 1;
      if (several) out(`run ${runId} is waiting for people: ${outcome.waiting.length} asks`);
      for (const exec of outcome.waiting) {
        out(describeWaiting(runId, exec, several));
        for (const line of answerHint(runId, exec, several)) out(line);
      }
      return ExitCode.waiting;
    }
    case 'stuck':
      out(`run ${runId} is stuck: ${outcome.reason}`);
      return ExitCode.stuck;
    case 'failed':
      err(`shop: run ${runId} failed: ${outcome.reason}`);
      return outcome.exitCode || ExitCode.failed;
    case 'interrupted':
      err(`shop: run ${runId} interrupted; its agents were stopped; pick it up with: shop resume ${runId}`);
      return ExitCode.interrupted;
    case 'lost':
      err(`shop: run ${runId} was taken over by another driver while this one was not running (its lease ran out); this one stopped without writing; see: shop status ${runId}`);
      return ExitCode.conflict;
  }
}

export function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 100 ? `${line.slice(0, 97)}…` : line;
}

export const errLine = (line: string) => process.stderr.write(`${line}\n`);
