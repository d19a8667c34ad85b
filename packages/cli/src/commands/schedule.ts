import { UsageError, quoted, responder } from '@shop/core';
import type { ScheduleJson } from '@shop/core';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { table } from '../table.js';
import { priorityArg } from '../args.js';

type Args = CommandArgs<'schedule'>;
const SUBS = 'add, list, slots, pause, resume, remove, run';
/** Which flags go with which subcommand: any other use is refused, not ignored. */
const ADD_ONLY = ['cron', 'tz', 'prompt', 'key', 'priority', 'overlap', 'catch-up'] as const;

/**
 * shop schedule add|list|slots|pause|resume|remove|run: runs that start themselves on a cron
 * schedule. The workers (shop watch) fire the slots; this records, shows and changes schedules.
 */
export default async function schedule(args: Args, ctx: Context): Promise<number> {
  const [sub, name, ...rest] = args.positionals;
  const v = args.values;
  for (const flag of ADD_ONLY)
    if (v[flag] !== undefined && sub !== 'add')
      throw new UsageError(`--${flag} goes with shop schedule add, not ${sub ?? 'nothing'}`);
  if (v.limit !== undefined && sub !== 'slots')
    throw new UsageError(`--limit goes with shop schedule slots, not ${sub ?? 'nothing'}`);
  const noMore = (n: number) => {
    const extra = [name, ...rest][n];
    if (extra !== undefined)
      throw new UsageError(`unexpected argument ${quoted(extra)} (shop schedule ${sub}); see: shop schedule --help`);
  };
  const needName = () => {
    if (name === undefined) throw new UsageError(`missing the schedule's name; usage: shop schedule ${sub} <name>`);
    noMore(1);
    return name;
  };
  const ops = await ctx.ops();
  switch (sub) {
    case 'add':
      return add(args, ctx, noMore);
    case 'list': {
      noMore(0);
      const all = await ops.schedules();
      if (v.json) printJson(ctx.out, all);
      else printList(ctx, all);
      return 0;
    }
    case 'slots': {
      const limit = v.limit === undefined ? 100 : Number(v.limit);
      if (!/^\d{1,4}$/.test(v.limit ?? '100') || limit < 1 || limit > 1000)
        throw new UsageError(`--limit ${quoted(v.limit ?? '')} must be a whole number from 1 to 1000`);
      const slots = await ops.scheduleSlots(needName(), limit);
      if (v.json) printJson(ctx.out, slots);
      else if (!slots.length) ctx.out(`no slot of ${name} has come yet`);
      else
        for (const line of table(
          ['SLOT', 'OUTCOME', 'RUN', 'DECIDED BY'],
          slots.map((s) => [s.slot, s.outcome, s.run_id === null ? '-' : String(s.run_id), s.decided_by]),
          { width: ctx.style.width },
        ))
          ctx.out(line);
      return 0;
    }
    case 'pause':
    case 'resume': {
      const s = await ops.pauseSchedule(needName(), sub === 'pause');
      if (v.json) printJson(ctx.out, s);
      else if (sub === 'pause')
        ctx.out(`schedule ${s.name} paused: it fires nothing until shop schedule resume ${s.name}`);
      else
        ctx.out(
          `schedule ${s.name} resumed: next at ${s.next[0] ?? 'never'} (the slots passed while paused are not caught up)`,
        );
      return 0;
    }
    case 'remove':
      await ops.removeSchedule(needName());
      if (v.json) printJson(ctx.out, { name, removed: true });
      else ctx.out(`schedule ${name} removed (its runs stay)`);
      return 0;
    case 'run': {
      const by = responder(undefined, ctx.project.root, ctx.env);
      const { run, liveWorkers } = await ops.runSchedule(needName(), by);
      if (v.json) printJson(ctx.out, { run: run.id, status: run.status });
      else {
        ctx.out(`run ${run.id} queued (${run.spec}, schedule ${name})`);
        if (!liveWorkers) ctx.out('  no worker is watching this store: it starts once one does (shop watch)');
      }
      return 0;
    }
    case undefined:
      throw new UsageError(`missing what to do (${SUBS}); see: shop schedule --help`);
    default:
      throw new UsageError(`unknown ${quoted(sub)} (shop schedule): one of ${SUBS}`);
  }
}

async function add(args: Args, ctx: Context, noMore: (n: number) => void): Promise<number> {
  const [, name, workflow] = args.positionals;
  const v = args.values;
  if (name === undefined || workflow === undefined)
    throw new UsageError('missing the name or the workflow; usage: shop schedule add <name> <workflow> --cron "EXPR"');
  noMore(2);
  if (v.cron === undefined)
    throw new UsageError('missing --cron "EXPR", e.g. --cron "0 9 * * 1-5" (09:00 on weekdays)');
  const priority = v.priority === undefined ? 0 : priorityArg(v.priority);
  const s = await (
    await ctx.ops()
  ).addSchedule({
    name,
    workflow,
    cron: v.cron,
    tz: v.tz,
    prompt: v.prompt,
    key: v.key ?? null,
    priority,
    overlap: v.overlap,
    catchUp: v['catch-up'],
    by: responder(undefined, ctx.project.root, ctx.env),
  });
  if (v.json) printJson(ctx.out, s);
  else {
    ctx.out(
      `schedule ${s.name} added: ${s.workflow} at "${s.cron}" (${s.tz}), overlap ${s.overlap}, catch-up ${s.catch_up}`,
    );
    ctx.out(`  next: ${s.next.join(', ')}`);
    ctx.out('  shop watch workers fire it; shop schedule list shows it');
  }
  return 0;
}

function printList(ctx: Context, all: ScheduleJson[]) {
  if (!all.length) {
    ctx.out('no schedules yet; add one with: shop schedule add <name> <workflow> --cron "EXPR"');
    return;
  }
  const rows = all.map((s) => [
    s.name,
    s.workflow,
    s.cron,
    s.tz,
    s.paused ? 'paused' : s.next.join(', '),
    s.last_slot
      ? `${s.last_slot.at} ${s.last_slot.outcome}${s.last_slot.run_id === null ? '' : ` (run ${s.last_slot.run_id})`}`
      : '-',
  ]);
  for (const line of table(['NAME', 'WORKFLOW', 'CRON', 'ZONE', 'NEXT', 'LAST SLOT'], rows, {
    width: ctx.style.width,
    shrink: [4, 5],
  }))
    ctx.out(line);
}
