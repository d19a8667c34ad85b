import { UsageError } from '@shop/core/errors';
import { editorArgv } from '@shop/core/project/editor';
import type { Execution, Run } from '@shop/core/types';
import type { AttachedCommand, TuiDeps } from '../deps.js';

/**
 * `claude --resume <session>` in the directory the session started in (Claude Code keeps
 * sessions per directory), with Shop's variables so the agent can `shop report`.
 */
export function claudeCommand(deps: Pick<TuiDeps, 'env' | 'ports'>, run: Run, exec: Execution): AttachedCommand {
  const agent = deps.ports.loadAgent(exec.agent!);
  if (agent.command) throw new UsageError(`agent ${agent.name} runs a custom command, not Claude Code: answer it with A or R`);
  if (!exec.sessionId || !exec.signalPath) throw new UsageError(`call ${exec.key} has no Claude session to open: answer it with A or R`);
  const bin = deps.ports.paths.binDir;
  return {
    command: deps.env.SHOP_CLAUDE_BIN || 'claude',
    args: ['--resume', exec.sessionId],
    cwd: exec.cwd ?? run.workspace,
    env: {
      ...deps.env,
      SHOP_RUN_ID: String(run.id), SHOP_CALL: exec.key, SHOP_AGENT: agent.name, SHOP_SIGNAL_FILE: exec.signalPath, SHOP_SESSION_ID: exec.sessionId,
      PATH: bin ? `${bin}:${deps.env.PATH ?? ''}` : deps.env.PATH,
    },
  };
}

/** `$VISUAL` (else `$EDITOR`) on the run's workspace; the variable may carry arguments ("code --wait"). */
export function editorCommand(env: NodeJS.ProcessEnv, run: Run): AttachedCommand {
  return { ...editorArgv(env, run.workspace), cwd: run.workspace, env };
}
