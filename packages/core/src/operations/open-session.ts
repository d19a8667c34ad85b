import { existsSync, rmSync } from 'node:fs';
import { checkpointInstructions } from '../agents/checkpoint-agent.js';
import { handleOf } from '../decisions/ask-handle.js';
import type { PauseSpec } from '../decisions/decision-spec.js';
import type { EnginePorts } from '../engine/ports.js';
import { UsageError } from '../errors.js';
import { readSignal, signalPath } from '../signals/signal.js';
import type { Execution, Run } from '../types.js';
import { clearSessionSignal, takeSessionAnswer, type SessionAnswer } from './answer.js';
import { refuseAgent, type Caller } from './answer-rules.js';
import { layRules } from '../rules/agent-rules.js';
import { holdSessionFor } from './hold-session.js';
import { keepSession, restoreSession } from '../engine/session-keeper.js';
import { dialectOf } from '../agents/dialects/dialect-of.js';
import type { CliName } from '../agents/dialects/dialect.js';

/**
 * What a front end needs to hand a person the waiting agent's own session: which CLI to start
 * with which arguments (`claude --resume <id>`, `codex resume <id>`, `gemini --resume <id>`),
 * where (CLIs keep sessions per directory) and with which variables (so the agent can `shop
 * report`). The terminal part is the front end's; the binary is SHOP_<CLI>_BIN or the CLI's name.
 */
export interface SessionHandOff {
  handle: string;
  agent: string;
  /** The agent's CLI, and its arguments for an interactive session on this one. */
  cli: CliName;
  args: string[];
  sessionId: string;
  cwd: string;
  /** Shop's variables for the agent's shell; the front end adds its own (PATH with `binDir`). */
  env: Record<string, string>;
  /** The folder of the `shop` executable, for PATH (null in tests). */
  binDir: string | null;
  /** Lets the session go (idempotent): answers are taken again. */
  release(): Promise<void>;
  /**
   * After the session: lets it go, and the agent's new report becomes the person's answer
   * (first answer wins); nothing while it has not reported anew.
   */
  answer(): Promise<SessionAnswer>;
}

/**
 * Opens a waiting agent's session for a person: refused for an agent, for an agent that runs a
 * custom command or has no session (`otherwise` says how to answer instead), and when
 * the ask was answered meanwhile or another process holds the session (exit 6). Held in the
 * store while the person is in it; a report written before it opened does not count.
 */
export async function openSession(
  ports: EnginePorts,
  caller: Caller,
  run: Run,
  exec: Execution,
  by: string,
  otherwise: string,
): Promise<SessionHandOff> {
  refuseAgent(caller, 'continuing');
  // The CLI the run's rules name (recorded when it started), whatever the file says now.
  const def = ports.loadAgent(exec.agent!);
  const rules = run.rules?.agents[exec.agent!];
  const agent = rules ? layRules(def, rules) : def;
  const dialect = dialectOf(agent);
  if (dialect.cli === 'command')
    throw new UsageError(`agent ${agent.name} runs a custom command, not an agent CLI with sessions; ${otherwise}`);
  if (!exec.sessionId || !exec.signalPath)
    throw new UsageError(`call ${exec.key} has no ${dialect.label} session to open; ${otherwise}`);
  const args = dialect.handOff(exec.sessionId)!;
  const cwd = exec.cwd ?? run.workspace;
  // Claude Code resumes a session only in the directory it started in.
  if (!existsSync(cwd))
    throw new UsageError(
      `the session of ${handleOf(exec)} runs in ${cwd}, which is not on this machine (${ports.self.host}); run shop continue where the project is checked out at that path, or ${otherwise}`,
    );
  const held = await holdSessionFor(ports, exec, by);
  // Claude Code's sessions are kept in the store (moved between machines); other CLIs' are where they ran.
  const ref = dialect.movesSessions ? { runId: run.id, key: exec.key, sessionId: exec.sessionId, cwd } : null;
  try {
    // Kept in the store after the agent's last step: put in place if this machine lacks it.
    if (ref) await restoreSession(ports, null, ref, 'run shop continue there');
  } catch (e) {
    await held.release();
    throw e;
  }
  clearSessionSignal(exec);
  const sessionId = exec.sessionId;
  // What the person said in the session goes to the store before the hold goes, so the
  // worker that sends the answer on resumes the conversation as it now is, on any machine.
  let kept: Promise<void> | null = null;
  const release = async () => {
    kept ??= (ref ? keepSession(ports, held.token, ref) : Promise.resolve()).finally(() => held.release());
    await kept;
  };
  return {
    handle: handleOf(exec),
    agent: agent.name,
    cli: dialect.cli,
    args,
    sessionId,
    cwd,
    binDir: ports.paths.binDir,
    env: {
      SHOP_RUN_ID: String(run.id),
      SHOP_CALL: exec.key,
      SHOP_AGENT: agent.name,
      SHOP_SIGNAL_FILE: exec.signalPath,
      SHOP_SESSION_ID: sessionId,
      ...(ports.paths.home ? { SHOP_HOME: ports.paths.home } : {}),
    },
    release,
    async answer() {
      await release();
      return takeSessionAnswer(ports, exec, by);
    },
  };
}

/** A review session (`shop continue --claude` on a pause): a built-in _checkpoint agent in the workspace. */
export interface ReviewHandOff {
  sessionId: string;
  cwd: string;
  args: string[];
  env: Record<string, string>;
  binDir: string | null;
  /** Records the session on the trail; its conclusion ("STATUS — reason") is only a recommendation, or null. */
  finish(): Promise<string | null>;
}

export function openReview(ports: EnginePorts, run: Run, exec: Execution): ReviewHandOff {
  const spec = exec.request as PauseSpec;
  const reviewFile = signalPath(ports.paths.signalsDir, run.id, exec.key, '_checkpoint.review');
  rmSync(reviewFile, { force: true });
  const sessionId = ports.newSessionId();
  return {
    sessionId,
    cwd: run.workspace,
    binDir: ports.paths.binDir,
    args: [
      '--session-id',
      sessionId,
      '--append-system-prompt',
      checkpointInstructions(spec.message, spec.decisions ?? []),
      spec.message,
    ],
    env: {
      SHOP_RUN_ID: String(run.id),
      SHOP_CALL: exec.key,
      SHOP_AGENT: '_checkpoint',
      SHOP_SIGNAL_FILE: reviewFile,
      SHOP_SESSION_ID: sessionId,
    },
    async finish() {
      const read = readSignal(reviewFile);
      const advice =
        read.kind === 'ok'
          ? `${read.signal.status}${read.signal.reason || read.signal.summary ? ` — ${read.signal.reason ?? read.signal.summary}` : ''}`
          : null;
      await ports.store.appendEvent(null, run.id, {
        type: 'review_session',
        key: exec.key,
        actor: '_checkpoint',
        channel: 'continue',
        data: { session_id: sessionId, recommendation: advice },
      });
      return advice;
    },
  };
}
