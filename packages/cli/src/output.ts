import { ExitCode } from '@shop/core/errors';
import type { DriveOutcome } from '@shop/core/engine/outcome';
import type { Notice, Notifier } from '@shop/core/engine/ports';
import type { Execution } from '@shop/core/types';

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
          return out(`  log: ${n.message}`);
      }
    },
  };
}

/** How to answer a waiting call, as exact commands. */
export function answerHint(runId: number, exec: Execution): string[] {
  if (exec.kind === 'pause') {
    return [
      `  decide:   shop continue ${runId}`,
      `  scripted: shop signal ${runId} --status CONTINUE   (or --status STOP --message "why")`,
    ];
  }
  return [
    `  talk to the agent: shop continue ${runId}`,
    `  answer for it:     shop signal ${runId} --status DONE --message "…"`,
  ];
}

export function describeWaiting(runId: number, exec: Execution): string {
  const who = exec.kind === 'pause' ? 'the workflow asks' : `${exec.agent} asks`;
  return `run ${runId} is waiting for a person (${exec.awaiting ?? 'input'}): ${who}: ${exec.waitingFor ?? ''}`;
}

/** Prints where driving stopped and returns the exit code of DESIGN.md's contract. */
export function printOutcome(runId: number, outcome: DriveOutcome, out: (line: string) => void, err: (line: string) => void): number {
  switch (outcome.status) {
    case 'completed':
      out(`run ${runId} completed${outcome.result != null ? `: ${JSON.stringify(outcome.result)}` : ''}`);
      return ExitCode.ok;
    case 'waiting_human':
      out(describeWaiting(runId, outcome.execution));
      for (const line of answerHint(runId, outcome.execution)) out(line);
      return ExitCode.waiting;
    case 'stuck':
      out(`run ${runId} is stuck: ${outcome.reason}`);
      return ExitCode.stuck;
    case 'failed':
      err(`shop: run ${runId} failed: ${outcome.reason}`);
      return outcome.exitCode || ExitCode.failed;
    case 'interrupted':
      err(`shop: run ${runId} interrupted; pick it up with: shop resume ${runId}`);
      return ExitCode.failed;
  }
}

export function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 100 ? `${line.slice(0, 97)}…` : line;
}

export const errLine = (line: string) => process.stderr.write(`${line}\n`);
