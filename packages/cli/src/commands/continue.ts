import { execa } from 'execa';
import { createInterface } from 'node:readline/promises';
import { loadAgent } from '@shop/core/agents/agent-def';
import { ExitCode, UsageError } from '@shop/core/errors';
import { responder } from '@shop/core/project/responder';
import { readSignal } from '@shop/core/signals/signal';
import type { Execution, Run } from '@shop/core/types';
import { runIdArg, str } from '../args.js';
import { binDir, type Context } from '../context.js';
import type { Parsed } from '../registry.js';
import { loadRunView } from '../run-view.js';
import { pickWaiting } from '../waiting.js';
import { resumeAfterAnswer } from './signal.js';

/**
 * shop continue <id>: for an agent's NEEDS_HUMAN, open its own Claude session in this
 * terminal; for a pause(), ask continue/stop here. Then resume the run in the foreground.
 */
export default async function continueRun(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop continue <id>');
  const view = await loadRunView(await ctx.store(), id);
  const exec = pickWaiting(view, str(args, 'call'), 'continue');
  if (exec.kind === 'pause') return decidePause(ctx, view.run, exec, str(args, 'by'));
  return openSession(ctx, view.run, exec);
}

async function openSession(ctx: Context, run: Run, exec: Execution): Promise<number> {
  const agent = loadAgent(ctx.project.root, exec.agent!);
  if (agent.command) throw new UsageError(`agent ${agent.name} runs a custom command, not Claude Code; answer with: shop signal ${run.id} --status DONE --message "…"`);
  const bin = ctx.env.SHOP_CLAUDE_BIN || 'claude';
  ctx.out(`Opening Claude session for: ${exec.agent}`);
  ctx.out(`Reason: ${exec.waitingFor ?? ''}`);
  ctx.out(`(session ${exec.sessionId} in ${exec.cwd}; the agent reports when it has what it needs)`);
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const child = await execa(bin, ['--resume', exec.sessionId!], {
      cwd: exec.cwd ?? run.workspace, stdio: 'inherit', reject: false,
      env: {
        SHOP_RUN_ID: String(run.id), SHOP_CALL: exec.key, SHOP_AGENT: agent.name, SHOP_SIGNAL_FILE: exec.signalPath!,
        SHOP_SESSION_ID: exec.sessionId!, PATH: `${binDir}:${process.env.PATH ?? ''}`,
      },
    });
    if (child.failed && child.exitCode === undefined) {
      throw new UsageError(`could not open ${bin}: ${String(child.message).split('\n')[0]} (install Claude Code or set SHOP_CLAUDE_BIN)`);
    }
  } finally {
    process.off('SIGINT', ignore);
  }
  const read = readSignal(exec.signalPath!);
  if (read.kind !== 'ok' || read.signal.status === 'NEEDS_HUMAN') {
    ctx.out(`run ${run.id} is still waiting: the agent has not reported a new status`);
    ctx.out(`  back to the session: shop continue ${run.id}`);
    return ExitCode.waiting;
  }
  ctx.out(`${exec.agent} reported ${read.signal.status}; resuming run ${run.id}`);
  return resumeAfterAnswer(ctx, run.id);
}

async function decidePause(ctx: Context, run: Run, exec: Execution, by: string | undefined): Promise<number> {
  ctx.out(`Run ${run.id} (${run.spec}) paused: ${exec.waitingFor}`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // One line iterator, made before any input is read: it buffers lines, whereas question()
  // drops those readline emits before it is asked (piped input arrives all at once).
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (q: string) => {
    rl.setPrompt(q);
    rl.prompt();
    const next = await lines.next();
    if (next.done) throw new UsageError(`no answer given (input closed); answer with: shop signal ${run.id} --status CONTINUE|STOP`);
    return String(next.value).trim();
  };
  try {
    let go: boolean | null = null;
    while (go === null) {
      const a = (await ask('Continue? [y/n] ')).toLowerCase();
      go = ['y', 'yes'].includes(a) ? true : ['n', 'no'].includes(a) ? false : null;
    }
    const message = go ? (await ask('Note (optional): ')) || null : (await ask('Reason for stopping: ')) || 'stopped by a person';
    const store = await ctx.store();
    const who = responder(by, ctx.project.root, ctx.env);
    await store.recordAnswer({ runId: run.id, key: exec.key, status: go ? 'CONTINUE' : 'STOP', message, responder: who, channel: 'continue' });
    ctx.out(`recorded ${go ? 'CONTINUE' : 'STOP'} by ${who}`);
  } finally {
    rl.close();
  }
  return resumeAfterAnswer(ctx, run.id);
}
