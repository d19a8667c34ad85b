import { readTail } from '../signals/agent-file.js';
import { killGroupAndWait } from './process-group.js';
import { startAgent } from './agent-host.js';
import { LogTail } from './log-tail.js';
import { finalResult, newStreamState, readStreamLine } from './stream-events.js';
import { bytes, capText } from '../text.js';
import type { AgentInvocation, AgentOutcome, AgentRunner } from './agent-runner.js';
import { signalProtocol } from './signal-protocol.js';
import { classifyFailure } from './transient.js';


/** The argv for one invocation: Claude Code's real flags, or the agent's `command:` template. */
export function buildArgv(bin: string, inv: AgentInvocation): string[] {
  const system = [inv.agent.instructions, signalProtocol()].filter(Boolean).join('\n\n');
  const model = inv.model ?? inv.agent.model;
  if (inv.agent.command) {
    const vars: Record<string, string> = {
      prompt: inv.prompt, session_id: inv.sessionId, system_prompt: system, model: model ?? '', cwd: inv.cwd,
    };
    return inv.agent.command.map((part) => part.replace(/\{(\w+)\}/g, (all, name: string) => vars[name] ?? all));
  }
  const argv = [bin, '-p', inv.prompt, inv.resume ? '--resume' : '--session-id', inv.sessionId, '--output-format', 'stream-json', '--verbose', '--append-system-prompt', system];
  if (model) argv.push('--model', model);
  if (inv.budgetUsd !== undefined) argv.push('--max-budget-usd', String(Math.round(inv.budgetUsd * 10_000) / 10_000));
  if (inv.agent.permissionMode) argv.push('--permission-mode', inv.agent.permissionMode);
  if (inv.agent.allowedTools.length) argv.push('--allowed-tools', ...inv.agent.allowedTools);
  return argv;
}

export class ClaudeRunner implements AgentRunner {
  constructor(private readonly bin: string) {}

  async invoke(inv: AgentInvocation): Promise<AgentOutcome> {
    const outcome = await this.spawn(inv);
    // A session that never got going (the first attempt died at once) cannot be resumed:
    // Claude Code answers "No conversation found". Start it under the same id instead.
    if (inv.resume && outcome.exitCode && /No conversation found/.test(safeRead(inv.stderrFile))) {
      return this.spawn({ ...inv, resume: false });
    }
    // The other way round: a session Shop thought never started did (its transcript is here,
    // say its agent died before its pid was recorded): Claude Code refuses the id as "already in use".
    if (!inv.resume && !inv.agent.command && outcome.exitCode && /Session ID \S+ is already in use/.test(safeRead(inv.stderrFile))) {
      return this.spawn({ ...inv, resume: true });
    }
    return outcome;
  }

  private async spawn(inv: AgentInvocation): Promise<AgentOutcome> {
    const [file, ...args] = buildArgv(this.bin, inv);
    const started = Date.now();
    // The leader of a process group of its own (a stop kills everything it started), output
    // straight into its log files, started by this process's agent host (agent-host.ts).
    const exit = await startAgent({ file, args, cwd: inv.cwd, env: agentEnv(inv.env), stdoutFile: inv.stdoutFile, stderrFile: inv.stderrFile });
    let timedOut = false;
    // Stopping an agent waits for its whole group to be gone (TERM, then KILL after a grace).
    let killing: Promise<void> | null = null;
    const kill = () => {
      if (exit.pid && !killing) killing = killGroupAndWait(exit.pid);
    };
    const timer = inv.timeout ? setTimeout(() => ((timedOut = true), kill()), inv.timeout * 1000) : null;
    if (inv.signal?.aborted) kill();
    inv.signal?.addEventListener('abort', kill, { once: true });
    if (exit.pid) inv.onSpawn?.(exit.pid);
    const tail = inv.onActivity ? followActivity(inv.stdoutFile, inv.onActivity) : null;
    const done = await exit.done;
    tail?.stop();
    if (timer) clearTimeout(timer);
    inv.signal?.removeEventListener('abort', kill);
    if (killing) await killing;

    const noMetrics = { costUsd: null, numTurns: null, durationMs: Date.now() - started };
    if (done.lost) return { exitCode: null, error: done.lost, output: '', metrics: noMetrics };
    if (done.error) return { exitCode: null, error: startFailure(file, args, done.error), output: '', metrics: noMetrics };
    if (timedOut) return { exitCode: null, error: `agent timed out after ${inv.timeout}s`, output: '', metrics: noMetrics };
    const stdout = safeRead(inv.stdoutFile);
    const parsed = finalResult(stdout);
    const metrics = parsed
      ? { costUsd: parsed.total_cost_usd ?? null, numTurns: parsed.num_turns ?? null, durationMs: parsed.duration_ms ?? noMetrics.durationMs }
      : noMetrics;
    const error = parsed?.is_error ? `claude reported an error: ${capText(parsed.result ?? 'no message')} (log: ${inv.stdoutFile})` : null;
    // The <promise> fallback reads only the final result text, never the raw event stream.
    const streamed = stdout.trimStart().startsWith('{');
    const transient = parsed?.is_error || done.code
      ? classifyFailure({ isError: Boolean(parsed?.is_error), apiStatus: parsed?.api_error_status, resultText: parsed?.result, stderr: safeRead(inv.stderrFile).slice(-20_000), exitCode: done.code })
      : null;
    return { exitCode: done.code, error, output: parsed?.result ?? (streamed ? '' : stdout), metrics, transient };
  }
}

/** Why a process could not start, in one short line (never the whole command line). */
function startFailure(file: string, args: string[], done: { code?: string; message?: string }): string {
  const message = String(done.message ?? '');
  const code = done.code ?? /\b(E[A-Z0-9]+)\b/.exec(message.slice(0, 2000))?.[1];
  if (code === 'ENOENT') return `agent command not found: ${file} (install Claude Code, or set SHOP_CLAUDE_BIN / the agent's command:)`;
  if (code === 'E2BIG') {
    const size = args.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
    return `could not start ${file}: its command line is too long (${bytes(size)}; the system allows about 2 MB, and 128 KB per argument) — pass the agent less text, e.g. a file path instead of the file's content`;
  }
  return `could not start ${file}: ${capText(code ?? message.split('\n')[0])}`;
}

/** Activity as the agent's stream-json log grows (an agent whose command: prints json never streams). */
function followActivity(file: string, onActivity: NonNullable<AgentInvocation['onActivity']>): LogTail {
  const state = newStreamState();
  return new LogTail(file, (line) => {
    if (readStreamLine(state, line) && state.activity) onActivity({ text: state.activity, numTurns: state.turns });
  });
}

/** The end of the agent's log (its final result is there); a log of gigabytes is not read whole. */
function safeRead(file: string): string {
  return readTail(file);
}

/** This process's environment with the agent's own variables over it (unset ones left out). */
function agentEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...extra })) if (v !== undefined) env[k] = v;
  return env;
}
