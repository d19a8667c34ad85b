import { spawn, type ChildProcess } from 'node:child_process';
import { open } from 'node:fs/promises';
import type { AgentExit, Contained, StartedAgent } from './agent-start.js';
import { killMarked } from './process-group.js';

/** Starts the agent from this process (no host, no lifeline); its leftovers go with it all the same. */
export async function startDirectly(req: Contained): Promise<StartedAgent> {
  const out = await open(req.stdoutFile, 'w', 0o600);
  const err = await open(req.stderrFile, 'w', 0o600).catch(async (e) => {
    await out.close();
    throw e;
  });
  let child: ChildProcess;
  try {
    child = spawn(req.file, req.args, {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: ['ignore', out.fd, err.fd],
    });
  } catch (e) {
    await Promise.all([out.close(), err.close()]);
    return {
      pid: undefined,
      containment: req.containment,
      done: Promise.resolve({ code: null, error: e as NodeJS.ErrnoException }),
    };
  }
  const pid = child.pid;
  const done = new Promise<AgentExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => {
      if (pid && req.containment !== 'pid-namespace') {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* the group is gone */
        }
        killMarked(req.marker);
      }
      resolve({ code });
    });
  });
  await Promise.all([out.close(), err.close()]);
  return { pid, containment: req.containment, done };
}
