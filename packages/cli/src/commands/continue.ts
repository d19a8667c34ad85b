import { ExitCode, UsageError, answerCommands, cliDialect, handleOf, refuseAgent, responder } from '@shop/core';
import type { Execution, PauseSpec, Run, ShopOperations } from '@shop/core';
import { acting, type Acted } from '../acting-json.js';
import { recordAndResume } from '../answer-call.js';
import { pickTarget } from '../ask-target.js';
import { Asker } from '../asker.js';
import { openClaude, openEditor } from '../claude-session.js';
import type { Context } from '../context.js';
import { promptDecisions } from '../decision-prompts.js';
import type { CommandArgs } from '../registry.js';
import { resumeAfterAnswer } from '../drive-here.js';

/**
 * shop continue <id>: for an agent's NEEDS_HUMAN, open its own Claude session in this
 * terminal; for a pause(), decide here (with --claude, after a review session). Then the
 * run resumes in the foreground.
 */
export default async function continueRun(args: CommandArgs<'continue'>, ctx: Context): Promise<number> {
  refuseAgent(ctx.caller, 'shop continue');
  const ops = await ctx.ops();
  return acting(ctx, args, async (acted) => {
    // A bare run id is not confirmed here: continue shows the question itself before anything is answered.
    const { view, exec } = await pickTarget(
      ops,
      args,
      'shop continue <id | handle> [--editor] [--claude] [--call K] [--by NAME]',
    );
    acted.runId = exec.runId;
    return continueAsk(args, ctx, ops, view.run, exec, acted);
  });
}

async function continueAsk(
  args: CommandArgs<'continue'>,
  ctx: Context,
  ops: ShopOperations,
  run: Run,
  exec: Execution,
  acted: Acted,
): Promise<number> {
  const handle = handleOf(exec);
  // Claude Code's session takes the terminal over: without one it cannot be used (and must
  // not be started). A pause's prompts work on piped input too.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (args.values.editor) {
    if (!terminal)
      throw new UsageError(
        `--editor opens the workspace in your editor and needs a terminal; without one, open ${run.workspace} yourself`,
      );
    await openEditor(ctx, run.workspace);
  }
  if (exec.kind === 'pause') {
    if (args.values.claude) {
      if (!terminal)
        throw new UsageError(
          `--claude opens a review session in Claude Code and needs a terminal; without one, decide with: ${answerCommands(exec, ['continue']).join(' · ')}`,
        );
      await reviewSession(ctx, ops, run, exec);
    }
    return decidePause(ctx, ops, run, exec, args.values.by, acted);
  }
  if (args.values.claude)
    throw new UsageError(
      `--claude is for pauses; ${handle} already is ${exec.agent}'s Claude session: shop continue ${handle}`,
    );
  if (!terminal) {
    const others = answerCommands(exec, ['continue', 'answer']);
    throw new UsageError(
      `shop continue opens ${exec.agent}'s Claude session and needs a terminal; without one, answer with: ${[`shop answer ${handle} "…"`, ...others].join(' · ')}`,
    );
  }
  return inSession(ctx, ops, run, exec, args.values.by);
}

/** The agent's own Claude session in this terminal (core's openSession: the hold, the session, its variables), then its report is the answer. */
async function inSession(
  ctx: Context,
  ops: ShopOperations,
  run: Run,
  exec: Execution,
  by: string | undefined,
): Promise<number> {
  const who = responder(by, ctx.project.root, ctx.env);
  const session = await ops.openSession(run, exec, who, `answer with: shop answer ${handleOf(exec)} "…"`);
  ctx.out(`Opening ${cliDialect(session.cli).short} session for: ${exec.agent}   [ask ${session.handle}]`);
  ctx.out(`Reason: ${exec.waitingFor ?? ''}`);
  ctx.out(`(session ${session.sessionId} in ${exec.cwd}; the agent reports when it has what it needs)`);
  try {
    await openClaude(ctx, session.args, session.cwd, session.env, session.cli);
  } finally {
    await session.release();
  }
  const taken = await session.answer();
  if (taken.kind !== 'answered') {
    ctx.out(
      `run ${run.id} is still waiting: ${taken.kind === 'invalid' ? `the agent's report ${taken.problem}` : 'the agent has not reported a new status'}`,
    );
    ctx.out(`  back to the session: shop continue ${session.handle}`);
    return ExitCode.waiting;
  }
  ctx.out(`${exec.agent} reported ${taken.status}; resuming run ${run.id}`);
  return resumeAfterAnswer(ctx, ops, run.id, taken.handedTo);
}

/** A built-in _checkpoint session to review the workspace; its conclusion is only a recommendation. */
async function reviewSession(ctx: Context, ops: ShopOperations, run: Run, exec: Execution): Promise<void> {
  const review = await ops.openReview(run, exec);
  ctx.out(`Opening a review session (_checkpoint, session ${review.sessionId}) in ${review.cwd}`);
  await openClaude(ctx, review.args, review.cwd, review.env);
  const advice = await review.finish();
  ctx.out(advice ? `The review session recommends: ${advice}` : 'The review session made no recommendation.');
  ctx.out('The decision is yours:');
}

async function decidePause(
  ctx: Context,
  ops: ShopOperations,
  run: Run,
  exec: Execution,
  by: string | undefined,
  acted: Acted,
): Promise<number> {
  const spec = exec.request as PauseSpec;
  ctx.out(`Run ${run.id} (${run.spec}) paused: ${spec.message}   [ask ${handleOf(exec)}]`);
  if (spec.context) ctx.out(spec.context);
  const ids = (spec.decisions ?? []).map((d) => `"${d.id}": …`).join(', ');
  const handle = handleOf(exec);
  const asker = new Asker(
    ids
      ? `answer with: shop signal ${handle} --answers '{${ids}}'`
      : `answer with: shop signal ${handle} --status CONTINUE|STOP`,
    ctx.prompts,
  );
  let input;
  try {
    const decisions = spec.decisions ?? [];
    const answers = decisions.length ? await promptDecisions(asker, decisions, ctx.out) : null;
    if (answers) ctx.out('');
    const go = await asker.yesNo(
      answers ? 'Submit these answers and continue?' : 'Continue?',
      answers ? true : undefined,
    );
    const message = go
      ? (await asker.ask('Note (optional): ')) || null
      : (await asker.ask('Reason for stopping: ')) || null;
    input = go ? (answers ? { answers, message } : { status: 'CONTINUE', message }) : { status: 'STOP', message };
  } finally {
    asker.close();
  }
  return recordAndResume(ctx, ops, exec, input, 'continue', by, acted);
}
