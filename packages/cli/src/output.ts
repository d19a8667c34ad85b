import { ExitCode, answerSuggestions, suggestionCommand, waitingOnWords } from '@shop/core';
import type { DriveOutcome, Execution, Notice, Notifier } from '@shop/core';
import type { LiveBoard } from './live-board.js';
import { printable } from './style.js';

/**
 * How to answer a waiting ask, one line per suggestion, each command naming the ask by handle:
 * "  approve:           shop approve 3.4 [--message "…"]   (returns APPROVED to the workflow)".
 */
export function answerHint(exec: Execution): string[] {
  const suggestions = answerSuggestions(exec);
  const width = Math.max(...suggestions.map((s) => s.label.length)) + 3;
  return suggestions.map(
    (s) => `  ${`${s.label}:`.padEnd(width)}${suggestionCommand(s)}${s.effect ? `   (${s.effect})` : ''}`,
  );
}

/**
 * Prints the engine's progress as it happens. With a live board on a terminal, a running
 * agent is a live line (spinner, elapsed, activity) that becomes its result line. With
 * `hints` (shop run/resume --wait), an ask is printed with the commands that answer it.
 */
export function printingNotifier(
  out: (line: string) => void,
  board?: LiveBoard,
  opts: { hints?: boolean } = {},
): Notifier {
  const live = board?.interactive ? board : null;
  const print = live ? (line: string) => live.line(line) : out;
  return {
    notify(n: Notice) {
      switch (n.type) {
        case 'agent_started':
          if (live) return live.start(n.key, n.agent, Date.now());
          return out(
            `  [${n.key}] ${n.agent} ${n.resumed ? 'resumed' : 'started'}${n.sessionId ? ` (session ${n.sessionId})` : ''}`,
          );
        case 'agent_activity':
          return live?.activity(n.key, n.text);
        case 'agent_finished': {
          const line = `  [${n.key}] ${n.agent} → ${n.status}${n.text ? `: ${firstLine(n.text)}` : ''}`;
          return live ? live.finish(n.key, line) : out(line);
        }
        case 'agent_retry':
          return print(
            `  [${n.key}] ${n.agent} failed on attempt ${n.attempt} of ${n.of} (${firstLine(n.error)}); trying again in ${n.delayMs < 1000 ? `${n.delayMs}ms` : `${Math.ceil(n.delayMs / 1000)}s`} on the same session`,
          );
        case 'waiting':
          print(`  [${n.execution.key}] waiting for a person: ${firstLine(n.execution.waitingFor ?? '')}`);
          // A process that keeps waiting (--wait) prints no outcome until the end: say how to answer now.
          if (opts.hints) for (const line of answerHint(n.execution)) print(`  ${line}`);
          return;
        case 'waiting_on':
          return print(`  [${n.execution.key}] waits on ${waitingOnWords([n.execution])}`);
        case 'woke':
          return print(
            `  [${n.key}] ${n.why === 'timer' ? 'its timer fired' : n.why === 'event' ? 'its event came' : 'the run it waited for ended'}; resuming`,
          );
        case 'resumed':
          return print(`  [${n.key}] answered${n.by ? ` by ${n.by}` : ''}; resuming`);
        case 'log':
          return print(`  log${n.key ? ` [${n.key}]` : ''}: ${indented(n.message, '      ')}`);
        case 'rules_kept':
          return print(
            `  rules kept: the files now say otherwise than run ${n.runId} started with (${n.differs.join('; ')}); it keeps its own — to take the files': shop resume ${n.runId} --accept-changes`,
          );
      }
    },
  };
}

/** "run 3 is waiting for a person (input): coder asks: …", or with several asks "call 1/2/1 (input): …". */
export function describeWaiting(runId: number, exec: Execution, several = false): string {
  const who = exec.kind === 'pause' ? 'the workflow asks' : `${exec.agent} asks`;
  return `${several ? `call ${exec.key}` : `run ${runId} is waiting for a person`} (${exec.awaiting ?? 'input'}): ${who}: ${indented(exec.waitingFor ?? '', '    ')}`;
}

/**
 * Text from an agent or a workflow that may span lines, set after a label: its later lines are
 * indented, so none can pass for a line of Shop's own ("run 3 completed") on a terminal.
 */
export const indented = (text: string, pad: string) => text.replace(/\r?\n/g, `\n${pad}`);

/** Prints where driving stopped and returns the exit code of DESIGN.md's contract. */
export function printOutcome(
  runId: number,
  outcome: DriveOutcome,
  out: (line: string) => void,
  err: (line: string) => void,
): number {
  switch (outcome.status) {
    case 'completed':
      out(`run ${runId} completed${outcome.result != null ? `: ${JSON.stringify(outcome.result)}` : ''}`);
      if (outcome.worktreeKept) out(`  worktree kept: ${outcome.worktreeKept}`);
      return ExitCode.ok;
    case 'waiting_human': {
      const several = outcome.waiting.length > 1;
      if (several) out(`run ${runId} is waiting for people: ${outcome.waiting.length} asks`);
      for (const exec of outcome.waiting) {
        out(describeWaiting(runId, exec, several));
        for (const line of answerHint(exec)) out(line);
      }
      return ExitCode.waiting;
    }
    case 'waiting':
      if (outcome.asks?.length) {
        // A child it waits on asks a person: answering that ask (its own handle) drives the child, then this run.
        out(`run ${runId} waits on ${waitingOnWords(outcome.waits)}, which is waiting for a person`);
        for (const exec of outcome.asks) {
          out(describeWaiting(exec.runId, exec, false));
          for (const line of answerHint(exec)) out(line);
        }
        return ExitCode.waiting;
      }
      out(
        `run ${runId} waits on ${waitingOnWords(outcome.waits)}; no person is needed: shop watch resumes it then (or keep a process on it: shop resume ${runId} --wait)`,
      );
      return ExitCode.waitingOn;
    case 'stuck':
      out(`run ${runId} is stuck: ${outcome.reason}`);
      if (outcome.worktreeKept) out(`  worktree kept: ${outcome.worktreeKept}`);
      return ExitCode.stuck;
    case 'failed':
      err(`shop: run ${runId} failed: ${outcome.reason}`);
      return outcome.exitCode || ExitCode.failed;
    case 'interrupted':
      err(`shop: run ${runId} interrupted; its agents were stopped; pick it up with: shop resume ${runId}`);
      return ExitCode.interrupted;
    case 'lost':
      err(
        `shop: run ${runId} was taken over by another driver while this one was not running (its lease ran out); this one stopped without writing; see: shop status ${runId}`,
      );
      return ExitCode.conflict;
    case 'replayed':
      out(`run ${runId}: its log replays against the workflow`);
      return ExitCode.ok;
  }
}

export function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 100 ? `${line.slice(0, 97)}…` : line;
}

export const errLine = (line: string) => process.stderr.write(`${printable(line)}\n`);

/**
 * An AGENT column's name for a call: a pause() is recorded as the built-in agent _checkpoint
 * (the store and --json keep that) but shown as "pause", as the TUI shows it.
 */
export const agentColumn = (agent: string | null, fallback = '-'): string =>
  agent === '_checkpoint' ? 'pause' : (agent ?? fallback);
