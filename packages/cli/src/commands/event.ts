import { UsageError, capText, parseEventData, quoted, refuseAgentSender, responder } from '@shop/core';
import type { EventSentJson, SentEventJson } from '@shop/core';
import { limitArg, runIdOf } from '../args.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { table } from '../table.js';
import { readTextInput } from '../text-input.js';
import { localTime } from '../time.js';

export const EVENT_USAGE =
  'shop event send <name> [--key K] [--data JSON | --data-file F|-] [--run ID] [--id ID] [--json] | list [--name N] [--run ID] [--limit N] [--json]';
/** The flags that go with one subcommand only. */
const ONLY = {
  key: ['send'],
  data: ['send'],
  'data-file': ['send'],
  id: ['send'],
  name: ['list'],
  limit: ['list'],
} satisfies Partial<Record<keyof CommandArgs<'event'>['values'], string[]>>;

/**
 * shop event send|list: events from the outside world (CI finished, a review, a deploy) that
 * waiting runs take (wait_event), and the events sent so far.
 */
export default async function event(args: CommandArgs<'event'>, ctx: Context): Promise<number> {
  const [sub, name] = args.positionals;
  for (const option of Object.keys(ONLY) as (keyof typeof ONLY)[]) {
    const subs = ONLY[option];
    if (args.values[option] !== undefined && !subs.includes(sub!))
      throw new UsageError(
        `--${option} goes with shop event ${subs.join(' or ')}, not ${sub ?? 'alone'}; usage: ${EVENT_USAGE}`,
      );
  }
  const run = args.values.run;
  const runId = run === undefined ? undefined : runIdOf(run, args.command, EVENT_USAGE);
  switch (sub) {
    case 'send':
      if (name === undefined)
        throw new UsageError(`missing the event's name; usage: shop event send <name> [--key K] [--data JSON]`);
      return send(args, ctx, name, runId);
    case 'list':
      if (name !== undefined)
        throw new UsageError(
          `unexpected argument ${quoted(name)} (shop event list); for events of one name: shop event list --name ${name}`,
        );
      return list(args, ctx, runId);
    case undefined:
      throw new UsageError(`missing what to do; usage: ${EVENT_USAGE}`);
    default:
      throw new UsageError(`unknown ${quoted(sub)} (shop event); usage: ${EVENT_USAGE}`);
  }
}

async function send(
  args: CommandArgs<'event'>,
  ctx: Context,
  name: string,
  runId: number | undefined,
): Promise<number> {
  // Refused inside an agent step before anything is read (stdin, a file) or opened.
  refuseAgentSender(ctx.caller);
  const { data, from } = await dataArg(args);
  const ops = await ctx.ops();
  const sent = await ops.sendEvent({
    name,
    key: args.values.key ?? null,
    data,
    dataFrom: from,
    runId: runId ?? null,
    sendId: args.values.id ?? null,
    sentBy: responder(undefined, ctx.cwd, ctx.env),
    channel: 'cli',
  });
  if (args.values.json) {
    printJson(ctx.out, sent satisfies EventSentJson);
    return 0;
  }
  const e = sent.event;
  if (sent.duplicate) {
    ctx.out(
      `event id ${quoted(e.send_id ?? '')} was sent before: nothing new recorded (it is event ${e.id}, ${described(e)}, sent ${localTime(Date.parse(e.sent_at))} by ${e.sent_by})`,
    );
    return 0;
  }
  ctx.out(`recorded event ${e.id}: ${described(e)}${e.run === null ? '' : `, for run ${e.run} alone`}`);
  const runs = (ids: number[]) => `run${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`;
  if (sent.woke.length)
    ctx.out(`woke ${runs(sent.woke)}, waiting on it: ${sent.woke.length === 1 ? 'it takes' : 'each takes'} the event`);
  else
    ctx.out(
      `no run waits on it now; ${e.run === null ? 'a run started before it takes it when it waits on it' : `run ${e.run} takes it when it waits on it`}`,
    );
  return 0;
}

/** --data JSON or --data-file F (- for stdin): parsed, at most 1 MiB (core says so in one line). */
async function dataArg(args: CommandArgs<'event'>): Promise<{ data: unknown; from: string }> {
  const text = args.values.data;
  const file = args.values['data-file'];
  if (text !== undefined && file !== undefined)
    throw new UsageError('give the data once: --data JSON or --data-file F, not both');
  if (text !== undefined) return { data: parseEventData(text, '--data'), from: '--data' };
  if (file === undefined) return { data: null, from: '--data' };
  const from = file === '-' ? 'stdin' : `--data-file ${quoted(file)}`;
  return { data: parseEventData(await readTextInput(file, '--data-file', 'the event data'), from), from };
}

/** "ci.finished (pr-42)". */
const described = (e: SentEventJson) => (e.key === null ? e.name : `${e.name} (${e.key})`);

async function list(args: CommandArgs<'event'>, ctx: Context, runId: number | undefined): Promise<number> {
  const json = args.values.json;
  const events = await (
    await ctx.ops()
  ).listSentEvents({ name: args.values.name, runId, limit: limitArg(args.values, 'events') });
  if (json) {
    printJson(ctx.out, events);
    return 0;
  }
  if (!events.length) {
    ctx.out(
      args.values.name || runId
        ? 'no event matches'
        : 'no event has been sent yet; send one with: shop event send <name> [--data JSON]',
    );
    return 0;
  }
  const rows = events.map((e) => [
    String(e.id),
    e.name,
    e.key ?? '-',
    localTime(Date.parse(e.sent_at)),
    e.sent_by,
    e.channel,
    e.run === null ? '-' : String(e.run),
    e.data === null ? '-' : capText(JSON.stringify(e.data), 80),
  ]);
  for (const line of table(['ID', 'NAME', 'KEY', 'SENT', 'BY', 'CHANNEL', 'RUN', 'DATA'], rows, {
    width: ctx.style.width,
    shrink: [7, 1],
  }))
    ctx.out(line);
  return 0;
}
