import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readTail } from '../signals/agent-file.js';
import { bytes, capText } from '../text.js';
import { startAgent } from './agent-host.js';
import { argTooLong } from './arg-limits.js';
import type { AgentInvocation, AgentOutcome, AgentRunner } from './agent-runner.js';
import { fromClaude, systemPrompt } from './dialects/claude.js';
import { dialectOf } from './dialects/dialect-of.js';
import type { AgentDialect, CliName, EventReader, StepResult } from './dialects/dialect.js';
import { LogTail } from './log-tail.js';
import { loggedOut } from './login-check.js';
import { killGroupAndWait } from './process-group.js';
import { finalResult } from './stream-events.js';
import { classifyFailure } from './transient.js';
import { mcpEnv, type StepMcp } from './shop-mcp.js';

/**
 * The real AgentRunner: starts the agent's CLI (Claude Code, Codex, Gemini CLI, or its own
 * `command:`) through its dialect (dialects/), follows its events while it works, and reads how
 * it ended. `bins` names each CLI's binary (SHOP_<CLI>_BIN, else the CLI's name).
 */
export class CliRunner implements AgentRunner {
  constructor(private readonly bins: (cli: CliName) => string) {}

  async invoke(inv: AgentInvocation): Promise<AgentOutcome> {
    const dialect = dialectOf(inv.agent);
    const outcome = await this.spawn(dialect, inv);
    // What only the CLI's own words tell: a session that never started, or one that did.
    const again = outcome.exitCode
      ? dialect.retry?.({
          resume: inv.resume,
          exitCode: outcome.exitCode,
          stderr: safeRead(inv.stderrFile),
          decidingGate: inv.gate !== undefined,
        })
      : null;
    if (!again) return outcome;
    return this.spawn(
      dialect,
      again.prompt
        ? { ...inv, resume: again.resume, prompt: again.prompt, gate: undefined }
        : { ...inv, resume: again.resume },
    );
  }

  private async spawn(dialect: AgentDialect, inv: AgentInvocation): Promise<AgentOutcome> {
    const step = {
      bin: dialect.cli === 'command' ? '' : this.bins(dialect.cli),
      agent: inv.agent,
      prompt: inv.prompt,
      system: systemPrompt(inv.agent.instructions),
      sessionId: inv.sessionId,
      resume: inv.resume && inv.sessionId !== null,
      cwd: inv.cwd,
      model: inv.model,
      budgetUsd: inv.budgetUsd,
      writable: inv.env.SHOP_SIGNAL_FILE ? [dirname(inv.env.SHOP_SIGNAL_FILE)] : [],
      decidingGate: inv.gate !== undefined,
      mcp: stepMcp(dialect, inv),
    };
    const [file, ...args] = dialect.argv(step);
    // Known before exec would say E2BIG: one line naming what is too long, nothing started.
    const tooLong = argTooLong(dialect, step, args);
    if (tooLong)
      return { exitCode: null, error: tooLong, output: '', metrics: { costUsd: null, numTurns: null, durationMs: 0 } };
    const notLoggedIn = file ? await loggedOut(dialect, file, () => agentEnv(inv.env)) : null;
    if (notLoggedIn)
      return {
        exitCode: null,
        error: notLoggedIn,
        output: '',
        metrics: { costUsd: null, numTurns: null, durationMs: 0 },
      };
    const started = Date.now();
    // The leader of a process group of its own (a stop kills everything it started), output
    // straight into its log files, started by this process's agent host (agent-host.ts).
    const gated = inv.gate ? { ...inv.env, SHOP_GATE_DECISION: JSON.stringify(inv.gate) } : inv.env;
    const mcpFile = step.mcp && dialect.mcpConfig ? dialect.mcpConfig(step.mcp) : null;
    // Private (it names the step's signal file), next to the step's logs in the run's 0700 folder.
    if (mcpFile) writeFileSync(step.mcp!.file, mcpFile.text, { mode: 0o600 });
    const env = mcpFile?.env ? { ...gated, ...mcpFile.env } : gated;
    const exit = await startAgent({
      file: file!,
      args,
      cwd: inv.cwd,
      env: agentEnv(env),
      stdoutFile: inv.stdoutFile,
      stderrFile: inv.stderrFile,
    });
    let ended: string | null = null;
    // Stopping an agent waits for its whole group to be gone (TERM, then KILL after a grace).
    let killing: Promise<void> | null = null;
    const kill = (why: string | null) => {
      ended ??= why;
      if (exit.pid && !killing) killing = killGroupAndWait(exit.pid);
    };
    const timer = inv.timeout
      ? setTimeout(() => kill(`agent timed out after ${inv.timeout}s`), inv.timeout * 1000)
      : null;
    const abort = () => kill(null);
    if (inv.signal?.aborted) abort();
    inv.signal?.addEventListener('abort', abort, { once: true });
    if (exit.pid) inv.onSpawn?.(exit.pid, exit.containment);
    const tail = exit.pid
      ? follow(dialect, inv, (stalled) =>
          kill(
            `${dialect.label} cannot reach its service and retries forever (${stalled}); check the network, and that it is logged in`,
          ),
        )
      : null;
    const done = await exit.done;
    if (mcpFile) rmSync(step.mcp!.file, { force: true });
    tail?.stop();
    if (timer) clearTimeout(timer);
    inv.signal?.removeEventListener('abort', abort);
    if (killing) await killing;

    const noMetrics = { costUsd: null, numTurns: null, durationMs: Date.now() - started };
    if (done.lost) return { exitCode: null, error: done.lost, output: '', metrics: noMetrics };
    if (done.error)
      return { exitCode: null, error: startFailure(dialect, file!, args, done.error), output: '', metrics: noMetrics };
    if (ended)
      return {
        exitCode: null,
        error: ended,
        output: '',
        metrics: noMetrics,
        transient: stalledTransient(ended, dialect),
      };
    const stdout = safeRead(inv.stdoutFile);
    const { result, sessionId } = readAll(dialect, stdout);
    const metrics = result
      ? {
          costUsd: result.costUsd,
          numTurns: result.numTurns,
          durationMs: result.durationMs ?? noMetrics.durationMs,
          ...(result.tokens ? { tokens: result.tokens } : {}),
        }
      : noMetrics;
    const who = dialect.cli === 'command' ? 'claude' : dialect.cli;
    const error = result?.isError
      ? `${who} reported an error: ${capText(result.text ?? 'no message')} (log: ${inv.stdoutFile})`
      : null;
    // The <promise> fallback reads only the final result text, never the raw event stream.
    const streamed = stdout.trimStart().startsWith('{');
    const transient =
      result?.isError || done.code
        ? classifyFailure({
            isError: Boolean(result?.isError),
            apiStatus: result?.apiStatus,
            resultText: result?.text,
            stderr: safeRead(inv.stderrFile).slice(-20_000),
            exitCode: done.code,
          })
        : null;
    return {
      exitCode: done.code,
      error,
      output: result?.text ?? (streamed ? '' : stdout),
      metrics,
      transient,
      sessionId,
      deferred: result?.deferred ?? null,
    };
  }
}

/**
 * Follows the agent's event log while it works: its activity, the session a CLI names itself
 * (recorded at once, so a crash mid-step resumes it), and a CLI that only retries forever.
 */
function follow(dialect: AgentDialect, inv: AgentInvocation, onStall: (why: string) => void): LogTail | null {
  if (!inv.onActivity && !inv.onSession && dialect.cli !== 'codex') return null;
  const reader = dialect.reader();
  let named = false;
  let stalled = false;
  return new LogTail(inv.stdoutFile, (line) => {
    if (reader.read(line) && reader.activity) inv.onActivity?.({ text: reader.activity, numTurns: reader.turns });
    if (!named && reader.sessionId && dialect.names === 'cli') {
      named = true;
      inv.onSession?.(reader.sessionId);
    }
    if (!stalled && reader.stalled) {
      stalled = true;
      onStall(reader.stalled);
    }
  });
}

/** The whole log read again once the agent ended: how it ended, and the session it ran. */
function readAll(dialect: AgentDialect, stdout: string): { result: StepResult | null; sessionId: string | null } {
  const reader: EventReader = dialect.reader();
  for (const line of stdout.split('\n')) reader.read(line);
  let result = reader.result;
  // Claude Code's `--output-format json` (an agent's own command may print it): one document.
  if (!result && (dialect.cli === 'claude' || dialect.cli === 'command')) {
    const whole = finalResult(stdout);
    result = whole ? fromClaude(whole) : null;
  }
  return { result, sessionId: reader.sessionId };
}

/** A CLI that only retries a service it cannot reach: the network kind, tried again later like one. */
function stalledTransient(ended: string, dialect: AgentDialect) {
  return /cannot reach its service/.test(ended)
    ? { kind: 'network' as const, detail: capText(`${dialect.label}: ${ended}`, 300) }
    : null;
}

/** Why a process could not start, in one short line (never the whole command line). */
function startFailure(
  dialect: AgentDialect,
  file: string,
  args: string[],
  done: { code?: string; message?: string },
): string {
  const message = String(done.message ?? '');
  const code = done.code ?? /\b(E[A-Z0-9]+)\b/.exec(message.slice(0, 2000))?.[1];
  if (code === 'ENOENT') {
    const how =
      dialect.cli === 'command'
        ? "check the agent's command:"
        : dialect.cli === 'claude'
          ? "install Claude Code, or set SHOP_CLAUDE_BIN / the agent's command:"
          : `install ${dialect.label}, or set SHOP_${dialect.cli.toUpperCase()}_BIN`;
    return `agent command not found: ${file} (${how})`;
  }
  if (code === 'E2BIG') {
    // One argument too long is told before the start (arg-limits.ts): here it is all of them, with the environment.
    const size = args.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
    return `could not start ${file}: its command line and environment are too long for the system (${bytes(size)} of arguments; about 2 MB in all is allowed) — pass the agent less text, e.g. a file path instead of the file's content`;
  }
  return `could not start ${file}: ${capText(code ?? message.split('\n')[0])}`;
}

/** Shop's MCP server for this invocation: a CLI's (not an agent's own command:), when the running shop can start one. */
function stepMcp(dialect: AgentDialect, inv: AgentInvocation): StepMcp | null {
  if (!inv.mcp || dialect.cli === 'command' || !inv.env.SHOP_SIGNAL_FILE) return null;
  return { ...inv.mcp, file: inv.stdoutFile.replace(/(\.stdout\.log)?$/, '.mcp.json'), env: mcpEnv(inv.env) };
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
