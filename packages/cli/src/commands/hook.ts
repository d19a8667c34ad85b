import { UsageError, quoted, refuseAgent, responder } from '@shop/core';
import type { HookAddedJson, HookJson } from '@shop/core';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { HOOK_USAGE } from '../specs/hooks.js';
import { table } from '../table.js';
import { localTime } from '../time.js';

/** Where shop serve listens unless told otherwise: the hook URL's base while no public address is recorded. */
const LOCAL_SERVE = 'http://127.0.0.1:7878';
/** The flags that go with add alone. */
const ADD_ONLY = ['workflow', 'event', 'key-from', 'prompt-from', 'filter', 'github', 'secret-env'] as const;

/** shop hook add|list|remove: webhooks shop serve receives at /hooks/<name>. */
export default async function hook(args: CommandArgs<'hook'>, ctx: Context): Promise<number> {
  // A hook lets the world start runs: a person's act, refused inside an agent step before anything is read.
  refuseAgent(ctx.caller, 'shop hook', 'lets the world outside start runs');
  const [sub, name] = args.positionals;
  if (sub !== 'add')
    for (const flag of ADD_ONLY)
      if (args.values[flag] !== undefined && args.values[flag] !== false)
        throw new UsageError(`--${flag} goes with shop hook add, not ${sub ?? 'alone'}; usage: ${HOOK_USAGE}`);
  const needName = () => {
    if (name === undefined) throw new UsageError(`missing the hook's name; usage: ${HOOK_USAGE}`);
    return name;
  };
  switch (sub) {
    case 'add':
      return add(args, ctx, needName());
    case 'list':
      if (name !== undefined)
        throw new UsageError(`unexpected argument ${quoted(name)} (shop hook list); usage: shop hook list [--json]`);
      return list(ctx, args.values.json);
    case 'remove':
      if (args.values.json) throw new UsageError('--json goes with shop hook add or list, not remove');
      await (await ctx.ops()).removeHook(needName());
      ctx.out(`removed hook ${name}: shop serve answers 404 at /hooks/${name} from now on`);
      return 0;
    case undefined:
      throw new UsageError(`missing what to do; usage: ${HOOK_USAGE}`);
    default:
      throw new UsageError(`unknown ${quoted(sub)} (shop hook); usage: ${HOOK_USAGE}`);
  }
}

async function add(args: CommandArgs<'hook'>, ctx: Context, name: string): Promise<number> {
  const v = args.values;
  if (v.github && v['secret-env'] !== undefined)
    throw new UsageError(
      "--github makes and keeps the secret you paste on GitHub; --secret-env reads yours from shop serve's environment: give one of them",
    );
  const added = await (
    await ctx.ops()
  ).addHook({
    name,
    workflow: v.workflow,
    event: v.event,
    keyFrom: v['key-from'],
    promptFrom: v['prompt-from'],
    filter: v.filter,
    github: v.github,
    secretEnv: v['secret-env'],
    by: responder(undefined, ctx.cwd, ctx.env),
  });
  if (v.json) {
    printJson(ctx.out, added satisfies HookAddedJson);
    return 0;
  }
  const h = added.hook;
  const url = h.url ?? `${LOCAL_SERVE}/hooks/${h.name}`;
  ctx.out(`added hook ${h.name}: each delivery ${does(h)}${h.filter === null ? '' : ` when it matches ${h.filter}`}`);
  ctx.out(`  URL:     ${url}`);
  if (added.secret !== null)
    ctx.out(`  secret:  ${added.secret}  (shown only this once; Shop keeps it to check signatures)`);
  else ctx.out(`  secret:  from $${h.secret_env} in shop serve's environment`);
  if (h.url === null)
    ctx.out(
      'That URL is shop serve on this machine; for a sender elsewhere, record the address it reaches: shop serve --public-url https://…',
    );
  if (h.github)
    ctx.out(
      "On GitHub: the repository's Settings → Webhooks → Add webhook: Payload URL the URL above, Content type application/json, Secret the secret above, and the events to send (e.g. Issues).",
    );
  else ctx.out('Sign each delivery: X-Shop-Signature-256: sha256=<hex HMAC-SHA256 of the body with the secret>.');
  return 0;
}

const does = (h: HookJson) =>
  h.workflow !== null
    ? `queues a run of ${h.workflow}${h.key_from === null ? '' : ` (key from ${h.key_from})`}`
    : `sends event ${h.event}${h.key_from === null ? '' : ` (key from ${h.key_from})`}`;

async function list(ctx: Context, json: boolean): Promise<number> {
  const hooks = await (await ctx.ops()).hooks();
  if (json) {
    printJson(ctx.out, hooks);
    return 0;
  }
  if (!hooks.length) {
    ctx.out('no hook yet; add one with: shop hook add <name> --workflow W --github');
    return 0;
  }
  const rows = hooks.map((h) => [
    h.name,
    h.workflow !== null ? `run ${h.workflow}` : `event ${h.event}`,
    h.filter ?? '-',
    h.github ? 'github' : '-',
    h.secret === 'env' ? `$${h.secret_env}` : 'kept',
    localTime(Date.parse(h.created_at)),
    h.url ?? `/hooks/${h.name}`,
  ]);
  for (const line of table(['NAME', 'DOES', 'FILTER', 'SENDER', 'SECRET', 'ADDED', 'URL'], rows, {
    width: ctx.style.width,
    shrink: [2, 6],
  }))
    ctx.out(line);
  return 0;
}
