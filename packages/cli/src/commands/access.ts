import { UsageError, checkPublicUrl, loginUrl, personJson, quoted, refuseAgent, responder } from '@shop/core';
import type { AccessAddedJson, AccessRevokedJson, ApiTokenAddedJson } from '@shop/core';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { table } from '../table.js';
import { localTime } from '../time.js';

/** Where `shop serve` listens unless told otherwise: the base of a login link when nothing better is known. */
export const DEFAULT_SERVE_URL = 'http://127.0.0.1:7878';
const USAGE = 'shop access add <name> [--url BASE | --token] [--json] | list [--json] | revoke <name> [--json]';

/**
 * shop access add|list|revoke: who may use `shop serve`. A person's login link, or a script's
 * API token (--token), holds a secret shown once here; the store keeps only its hash.
 */
export default async function access(args: CommandArgs<'access'>, ctx: Context): Promise<number> {
  // Giving access is a person's act: an agent that could mint itself a login could answer its own asks.
  refuseAgent(ctx.caller, 'shop access', 'gives people access to shop serve');
  const [sub, name, ...extra] = args.positionals;
  const needName = (n: string | undefined) => {
    if (n === undefined) throw new UsageError(`missing the person's name; usage: shop access ${sub} <name>`);
    if (extra.length)
      throw new UsageError(
        `unexpected argument ${quoted(extra[0])} (shop access ${sub}); a name with spaces goes in quotes: shop access ${sub} "Ann Lee"`,
      );
    return n;
  };
  const onlyFor = (given: boolean, flagName: string, subs: string[]) => {
    if (given && !subs.includes(sub!))
      throw new UsageError(`--${flagName} goes with shop access ${subs.join(' or ')}, not ${sub}`);
  };
  onlyFor(args.values.url !== undefined, 'url', ['add']);
  onlyFor(args.values.token, 'token', ['add']);
  if (args.values.token && args.values.url !== undefined)
    throw new UsageError('--url makes a login link, --token an API token: give one of them (shop access add)');
  switch (sub) {
    case 'add':
      return args.values.token
        ? addToken(ctx, needName(name), args.values.json)
        : add(ctx, needName(name), args.values.url, args.values.json);
    case 'list':
      if (name !== undefined)
        throw new UsageError(
          `unexpected argument ${quoted(name)} (shop access list); usage: shop access list [--json]`,
        );
      return list(ctx, args.values.json);
    case 'revoke': {
      const who = needName(name);
      const kind = await (await ctx.ops()).revokePerson(who);
      if (args.values.json) printJson(ctx.out, { name: who, kind } satisfies AccessRevokedJson);
      else if (kind === 'token') ctx.out(`revoked the API token of ${who}: shop serve refuses it from now on (401)`);
      else ctx.out(`revoked ${who}: their login link no longer works and shop serve refuses them`);
      return 0;
    }
    case undefined:
      throw new UsageError(`missing what to do; usage: ${USAGE}`);
    default:
      throw new UsageError(`unknown ${quoted(sub)} (shop access); usage: ${USAGE}`);
  }
}

async function add(ctx: Context, name: string, url: string | undefined, json: boolean): Promise<number> {
  const ops = await ctx.ops();
  // Checked before anyone is added, so a bad --url leaves nothing behind.
  const base = url !== undefined ? checkPublicUrl(url) : ((await ops.publicUrl()) ?? DEFAULT_SERVE_URL);
  const { token } = await ops.addPerson(name, responder(undefined, ctx.cwd, ctx.env));
  const link = loginUrl(base, token);
  if (json) {
    printJson(ctx.out, { name, login_url: link } satisfies AccessAddedJson);
    return 0;
  }
  ctx.out(`${name} can sign in to shop serve with this link (shown only this once; Shop keeps only a hash of it):`);
  ctx.out(`  ${link}`);
  ctx.out(
    `Send it privately: whoever holds it answers as ${name}. Lost or leaked: shop access revoke ${quoted(name)}, then add them again.`,
  );
  if (base === DEFAULT_SERVE_URL) {
    ctx.out(
      `The link points at shop serve on this machine; for another address, give --url, or record it once with shop serve --public-url URL.`,
    );
  }
  return 0;
}

async function addToken(ctx: Context, name: string, json: boolean): Promise<number> {
  const { token } = await (await ctx.ops()).addApiToken(name, responder(undefined, ctx.cwd, ctx.env));
  if (json) {
    printJson(ctx.out, { name, kind: 'token', token } satisfies ApiTokenAddedJson);
    return 0;
  }
  ctx.out(`API token for ${name} (shown only this once; Shop keeps only a hash of it):`);
  ctx.out(`  ${token}`);
  ctx.out(`Send it as the header  Authorization: Bearer <token>  to shop serve's /api/*; it acts as ${name}.`);
  ctx.out(`Keep it in a secret store. Lost or leaked: shop access revoke ${quoted(name)}, then add it again.`);
  return 0;
}

async function list(ctx: Context, json: boolean): Promise<number> {
  const people = await (await ctx.ops()).people();
  if (json) {
    printJson(ctx.out, people.map(personJson));
    return 0;
  }
  if (!people.length) {
    ctx.out('no one has access to shop serve yet; add someone with: shop access add <name> (or --token for a script)');
    return 0;
  }
  const when = (ms: number | null) => (ms === null ? '-' : localTime(ms));
  const rows = people.map((p) => [
    p.name,
    p.kind,
    when(p.createdAt),
    p.createdBy,
    when(p.lastSeenAt),
    p.revokedAt === null ? '-' : `revoked ${localTime(p.revokedAt)}`,
  ]);
  for (const line of table(['NAME', 'KIND', 'ADDED', 'BY', 'LAST SEEN', 'REVOKED'], rows, {
    width: ctx.style.width,
    shrink: [0, 3],
  }))
    ctx.out(line);
  return 0;
}
