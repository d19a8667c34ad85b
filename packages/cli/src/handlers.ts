import type { CommandFn } from './command-spec.js';
import type { Context } from './context.js';
import type { CommandArgs, CommandName, CommandOptions } from './registry.js';

/** Each command's module, loaded only when it is called: a plain command starts without the others. */
type Handlers = { [N in CommandName]: () => Promise<{ default: CommandFn<CommandOptions<N>> }> };

/** One per command in the table, whose handler takes that command's flags (a command without one does not compile). */
const handlers: Handlers = {
  init: () => import('./commands/init.js'),
  run: () => import('./commands/run.js'),
  list: () => import('./commands/list.js'),
  status: () => import('./commands/status.js'),
  log: () => import('./commands/log.js'),
  resume: () => import('./commands/resume.js'),
  stop: () => import('./commands/stop.js'),
  priority: () => import('./commands/priority.js'),
  prune: () => import('./commands/prune.js'),
  schedule: () => import('./commands/schedule.js'),
  inbox: () => import('./commands/inbox.js'),
  continue: () => import('./commands/continue.js'),
  approve: () => import('./commands/approve.js'),
  reject: () => import('./commands/reject.js'),
  answer: () => import('./commands/answer.js'),
  claim: () => import('./commands/claim.js'),
  signal: () => import('./commands/signal.js'),
  watch: () => import('./commands/watch.js'),
  workers: () => import('./commands/workers.js'),
  serve: () => import('./commands/serve.js'),
  access: () => import('./commands/access.js'),
  event: () => import('./commands/event.js'),
  hook: () => import('./commands/hook.js'),
  tui: () => import('./commands/tui.js'),
  test: () => import('./commands/test.js'),
  demo: () => import('./commands/demo.js'),
  replay: () => import('./commands/replay.js'),
  gate: () => import('./commands/gate.js'),
  report: () => import('./commands/report.js'),
  mcp: () => import('./commands/mcp.js'),
};

/** Runs command `name` with what the parser read against its own declaration. */
export async function runCommand<N extends CommandName>(name: N, args: CommandArgs<N>, ctx: Context): Promise<number> {
  const { default: handler } = await handlers[name]();
  return handler(args, ctx);
}
