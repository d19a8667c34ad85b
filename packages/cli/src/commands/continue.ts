import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadAgent } from '@shop/core/agents/agent-def';
import { checkpointInstructions } from '@shop/core/agents/checkpoint-agent';
import type { PauseSpec } from '@shop/core/decisions/decision-spec';
import { ExitCode, UsageError } from '@shop/core/errors';
import { responder } from '@shop/core/project/responder';
import { readSignal, signalPath } from '@shop/core/signals/signal';
import type { Execution, Run } from '@shop/core/types';
import { answerCommands } from '@shop/core/decisions/answer-hint';
import { clearSessionSignal, takeSessionAnswer } from '@shop/core/operations/answer';
import { handleOf } from '@shop/core/decisions/ask-handle';
import { acting, type Acted } from '../acting-json.js';
import { holdSessionFor } from '@shop/core/operations/hold-session';
import { recordAndResume, refuseAgents } from '../answer-call.js';
import { pickTarget } from '../ask-target.js';
import { flag, str } from '../args.js';
import { Asker } from '../asker.js';
import { openClaude, openEditor } from '../claude-session.js';
import type { Context } from '../context.js';
import { promptDecisions } from '../decision-prompts.js';
import type { Parsed } from '../registry.js';
import { enginePorts, resumeAfterAnswer } from '../drive-here.js';

/**
 * shop continue <id>: for an agent's NEEDS_HUMAN, open its own Claude session in this
 * terminal; for a pause(), decide here (with --claude, after a review session). Then the
 * run resumes in the foreground.
 */
export default async function continueRun(args: Parsed, ctx: Context): Promise<number> {
  refuseAgents(ctx, 'shop continue <id>');
  return acting(ctx, args, 'continue', async (acted) => {
    // A bare run id is not confirmed here: continue shows the question itself before anything is answered.
    const { exec } = await pickTarget(ctx, args, 'shop continue <id | handle> [--editor] [--claude] [--call K] [--by NAME]');
    acted.runId = exec.runId;
    return continueAsk(args, ctx, exec, acted);
  });
}

async function continueAsk(args: Parsed, ctx: Context, exec: Execution, acted: Acted): Promise<number> {
  const store = await ctx.store();
  const run = (await store.getRun(exec.runId))!;
  const handle = handleOf(exec);
  // Claude Code's session takes the terminal over: without one it cannot be used (and must
  // not be started). A pause's prompts work on piped input too.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (flag(args, 'editor')) {
    if (!terminal) throw new UsageError(`--editor opens the workspace in your editor and needs a terminal; without one, open ${run.workspace} yourself`);
    await openEditor(ctx, run.workspace);
  }
  if (exec.kind === 'pause') {
    if (flag(args, 'claude')) {
      if (!terminal) throw new UsageError(`--claude opens a review session in Claude Code and needs a terminal; without one, decide with: ${answerCommands(exec, ['continue']).join(' · ')}`);
      await reviewSession(ctx, run, exec);
    }
    return decidePause(ctx, run, exec, str(args, 'by'), acted);
  }
  if (flag(args, 'claude')) throw new UsageError(`--claude is for pauses; ${handle} already is ${exec.agent}'s Claude session: shop continue ${handle}`);
  if (!terminal) {
    const others = answerCommands(exec, ['continue', 'answer']);
    throw new UsageError(`shop continue opens ${exec.agent}'s Claude session and needs a terminal; without one, answer with: ${[`shop answer ${handle} "…"`, ...others].join(' · ')}`);
  }
  return openSession(ctx, run, exec, str(args, 'by'));
}

async function openSession(ctx: Context, run: Run, exec: Execution, by: string | undefined): Promise<number> {
  const agent = loadAgent(ctx.project.root, exec.agent!);
  if (agent.command) throw new UsageError(`agent ${agent.name} runs a custom command, not Claude Code; answer with: shop answer ${handleOf(exec)} "…"`);
  const ports = await enginePorts(ctx);
  // One process per session: held in the store while the person is in it (answers wait for it).
  const held = await holdSessionFor(ports, exec, responder(by, ctx.project.root, ctx.env));
  ctx.out(`Opening Claude session for: ${exec.agent}   [ask ${handleOf(exec)}]`);
  ctx.out(`Reason: ${exec.waitingFor ?? ''}`);
  ctx.out(`(session ${exec.sessionId} in ${exec.cwd}; the agent reports when it has what it needs)`);
  try {
    // Only what the agent reports during this session answers the ask: an older file goes first.
    clearSessionSignal(exec);
    await openClaude(ctx, ['--resume', exec.sessionId!], exec.cwd ?? run.workspace, {
      SHOP_RUN_ID: String(run.id), SHOP_CALL: exec.key, SHOP_AGENT: agent.name, SHOP_SIGNAL_FILE: exec.signalPath!, SHOP_SESSION_ID: exec.sessionId!,
    });
  } finally {
    await held.release();
  }
  const taken = await takeSessionAnswer(ports, exec, responder(by, ctx.project.root, ctx.env));
  if (taken.kind !== 'answered') {
    ctx.out(`run ${run.id} is still waiting: ${taken.kind === 'invalid' ? `the agent's report ${taken.problem}` : 'the agent has not reported a new status'}`);
    ctx.out(`  back to the session: shop continue ${handleOf(exec)}`);
    return ExitCode.waiting;
  }
  ctx.out(`${exec.agent} reported ${taken.status}; resuming run ${run.id}`);
  return resumeAfterAnswer(ctx, ports, run.id, taken.handedTo);
}

/** A built-in _checkpoint session to review the workspace; its conclusion is only a recommendation. */
async function reviewSession(ctx: Context, run: Run, exec: Execution): Promise<void> {
  const spec = exec.request as PauseSpec;
  const reviewFile = signalPath(ctx.project.signalsDir, run.id, exec.key, '_checkpoint.review');
  rmSync(reviewFile, { force: true });
  const sessionId = randomUUID();
  ctx.out(`Opening a review session (_checkpoint, session ${sessionId}) in ${run.workspace}`);
  await openClaude(ctx, ['--session-id', sessionId, '--append-system-prompt', checkpointInstructions(spec.message, spec.decisions ?? []), spec.message], run.workspace, {
    SHOP_RUN_ID: String(run.id), SHOP_CALL: exec.key, SHOP_AGENT: '_checkpoint', SHOP_SIGNAL_FILE: reviewFile, SHOP_SESSION_ID: sessionId,
  });
  const store = await ctx.store();
  const read = readSignal(reviewFile);
  const advice = read.kind === 'ok' ? `${read.signal.status}${read.signal.reason || read.signal.summary ? ` — ${read.signal.reason ?? read.signal.summary}` : ''}` : null;
  await store.appendEvent(null, run.id, { type: 'review_session', key: exec.key, actor: '_checkpoint', channel: 'continue', data: { session_id: sessionId, recommendation: advice } });
  ctx.out(advice ? `The review session recommends: ${advice}` : 'The review session made no recommendation.');
  ctx.out('The decision is yours:');
}

async function decidePause(ctx: Context, run: Run, exec: Execution, by: string | undefined, acted: Acted): Promise<number> {
  const spec = exec.request as PauseSpec;
  ctx.out(`Run ${run.id} (${run.spec}) paused: ${spec.message}   [ask ${handleOf(exec)}]`);
  if (spec.context) ctx.out(spec.context);
  const ids = (spec.decisions ?? []).map((d) => `"${d.id}": …`).join(', ');
  const handle = handleOf(exec);
  const asker = new Asker(ids ? `answer with: shop signal ${handle} --answers '{${ids}}'` : `answer with: shop signal ${handle} --status CONTINUE|STOP`, ctx.prompts);
  let input;
  try {
    const decisions = spec.decisions ?? [];
    const answers = decisions.length ? await promptDecisions(asker, decisions, ctx.out) : null;
    if (answers) ctx.out('');
    const go = await asker.yesNo(answers ? 'Submit these answers and continue?' : 'Continue?', answers ? true : undefined);
    const message = go ? (await asker.ask('Note (optional): ')) || null : (await asker.ask('Reason for stopping: ')) || null;
    input = go ? (answers ? { answers, message } : { status: 'CONTINUE', message }) : { status: 'STOP', message };
  } finally {
    asker.close();
  }
  return recordAndResume(ctx, exec, input, 'continue', by, acted);
}
