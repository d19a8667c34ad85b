import { cliBin, editorArgv } from '@shop/core';
import type { Run, SessionHandOff } from '@shop/core';
import type { AttachedCommand } from '../deps.js';

/**
 * The agent's CLI on its session (`claude --resume <session>`, `codex resume <thread>`, `gemini
 * --resume <session>`) in the directory the session started in (CLIs keep sessions per
 * directory), with Shop's variables (core's openSession) so the agent can `shop report`.
 */
export function agentCliCommand(env: NodeJS.ProcessEnv, session: SessionHandOff): AttachedCommand {
  return {
    command: cliBin(session.cli, env),
    args: session.args,
    cwd: session.cwd,
    env: { ...env, ...session.env, PATH: session.binDir ? `${session.binDir}:${env.PATH ?? ''}` : env.PATH },
  };
}

/** `$VISUAL` (else `$EDITOR`) on the run's workspace; the variable may carry arguments ("code --wait"). */
export function editorCommand(env: NodeJS.ProcessEnv, run: Run): AttachedCommand {
  return { ...editorArgv(env, run.workspace), cwd: run.workspace, env };
}
