import { ExitCode, NotFoundError, driverGoneSince } from '@shop/core';
import type { ReadOperations, RunEvent } from '@shop/core';
import { runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { localTime } from '../time.js';

const USAGE = 'shop log <id> [-f] [--json]';

/** shop log <id> [--json]: the audit trail, in order; -f follows it (and the agents at work) until the run ends or waits. */
export default async function log(args: CommandArgs<'log'>, ctx: Context): Promise<number> {
  const id = runIdArg(args, USAGE);
  const ops = await ctx.reads();
  if (args.values.follow) return follow(ctx, ops, id, args.values.json);
  if (args.values.json) {
    printJson(ctx.out, await ops.log(id));
    return 0;
  }
  const { executions } = await ops.runView(id);
  const events = await ops.events(id);
  const agents = new Map(executions.map((e) => [e.key, e.agent ?? e.kind]));
  for (const e of events) ctx.out(eventLine(e, agents));
  return 0;
}

/**
 * Prints the trail as it grows and each change of an agent's activity, until the run ends
 * or waits (on people, or on time, an event or a run); the exit code is then the run's (0, 3, 7, 4, 1) — or 130 when its
 * driver is gone (interrupted: nothing will move it until shop resume or shop watch takes it
 * over). With --json, a JSON object per line.
 */
async function follow(ctx: Context, ops: ReadOperations, id: number, json: boolean): Promise<number> {
  let lastEvent = 0;
  const said = new Map<string, string>();
  // Each call's agent, looked up once when an event first names it: a look reads what is new, not the whole log.
  const agents = new Map<string, string>();
  const liveness = ops.liveness;
  for (;;) {
    // The run and its open calls only: what works (its activity) and whether anything still does.
    const run = await ops.run(id);
    if (!run) throw new NotFoundError(`no run ${id}; see runs with: shop list`);
    const executions = await ops.openCalls(id);
    for (const e of await ops.eventsSince(id, lastEvent)) {
      lastEvent = e.id;
      if (!json && e.key && !agents.has(e.key)) {
        const call = await ops.call(id, e.key);
        if (call) agents.set(e.key, call.agent ?? call.kind);
      }
      ctx.out(json ? JSON.stringify({ kind: 'event', ...e }) : eventLine({ ...e, at: Date.parse(e.at) }, agents));
    }
    for (const e of executions) {
      if (e.status !== 'running' || !e.activity || said.get(e.key) === e.activity) continue;
      said.set(e.key, e.activity);
      const at = iso(e.activityAt ?? Date.now());
      ctx.out(
        json
          ? JSON.stringify({ kind: 'activity', at, key: e.key, agent: e.agent, activity: e.activity })
          : `${stamp(e.activityAt ?? Date.now())}  activity [${e.key} ${e.agent}]  ${e.activity}`,
      );
    }
    const working = executions.some((e) => e.status === 'running');
    // Nothing drives it: following would wait for ever. Say so, and how to pick it up.
    const gone = driverGoneSince(run, liveness);
    if (gone !== null) {
      const line = `run ${id} is interrupted: its driver is gone since ${stamp(gone)}; pick it up with: shop resume ${id} (or let shop watch take it over)`;
      ctx.out(
        json ? JSON.stringify({ kind: 'interrupted', at: iso(gone), run: id, resume_with: `shop resume ${id}` }) : line,
      );
      return ExitCode.interrupted;
    }
    if (run.status === 'completed') return ExitCode.ok;
    if (run.status === 'stuck') return ExitCode.stuck;
    if (run.status === 'failed') return ExitCode.failed;
    if (run.status === 'waiting_human' && !working) return ExitCode.waiting;
    // Asleep on time, an event or another run: nothing moves until then (shop watch wakes it).
    if (run.status === 'waiting' && !working) return ExitCode.waitingOn;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** One line of the trail: a stored event, or one read as JSON (eventsSince) with its time back in ms. */
function eventLine(
  e: Pick<RunEvent, 'at' | 'type' | 'key' | 'actor' | 'data'> & { channel: string },
  agents: Map<string, string>,
): string {
  const call = e.key ? ` [${e.key}${agents.get(e.key) ? ` ${agents.get(e.key)}` : ''}]` : '';
  const who = e.actor === 'shop' ? '' : ` by ${e.actor} (${e.channel})`;
  return `${stamp(e.at)}  ${e.type}${call}${who}${detail(e.data)}`;
}

/** Local time with its UTC offset: never a bare UTC time a reader would take for local. */
const stamp = localTime;
const iso = (t: number) => new Date(t).toISOString();

function detail(data: Record<string, unknown> | null): string {
  if (!data) return '';
  const parts = Object.entries(data)
    .filter(([, v]) => v != null && v !== '')
    .map(
      ([k, v]) =>
        `${k}=${typeof v === 'string' ? JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}…` : v) : JSON.stringify(v)}`,
    );
  return parts.length ? `  ${parts.join(' ')}` : '';
}
