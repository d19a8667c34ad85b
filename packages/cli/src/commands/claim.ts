import { ClaimedError, UsageError, refuseAgent, responder } from '@shop/core';
import type { ClaimJson } from '@shop/core';
import { claimedLine } from '../claim-text.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop claim <handle> [--release [--force]] [--by NAME] [--json]';

/**
 * shop claim <handle>: "I'm on it" — the ask's reminders and escalation wait while the claim
 * lasts; --release lets go (--force: someone else's claim). People only, like answering.
 */
export default async function claim(args: CommandArgs<'claim'>, ctx: Context): Promise<number> {
  refuseAgent(ctx.caller, 'shop claim');
  const handle = args.positionals[0];
  if (handle === undefined)
    throw new UsageError(`missing the ask's handle (as shop inbox shows it, e.g. 33.4); usage: ${USAGE}`);
  const release = args.values.release;
  if (args.values.force && !release)
    throw new UsageError(`--force goes with --release (to let go of someone else's claim); usage: ${USAGE}`);
  const by = responder(args.values.by, ctx.project.root, ctx.env);
  const ops = await ctx.ops();
  let result: ClaimJson;
  try {
    result = release
      ? await ops.release({ handle, by, force: args.values.force, channel: 'cli' })
      : await ops.claim({ handle, by, channel: 'cli' });
  } catch (e) {
    if (e instanceof ClaimedError)
      throw new ClaimedError(
        e.handle,
        e.claim,
        `${e.message}; to take it over: shop claim ${e.handle} --release --force, then shop claim ${e.handle}`,
      );
    throw e;
  }
  if (args.values.json) printJson(ctx.out, result);
  else ctx.out(describe(result));
  return 0;
}

function describe(r: ClaimJson): string {
  const question = r.question ? `: ${r.question.split('\n')[0]}` : '';
  if (r.claimed_by) {
    const c = r.claimed_by;
    return `${r.handle}${question}\n${claimedLine({ ...c, since: Date.parse(c.since), until: Date.parse(c.until) })}; reminders and escalation wait. Let go with: shop claim ${r.handle} --release`;
  }
  if (!r.released) return `${r.handle} was not claimed; nothing to let go of`;
  return `released ${r.released.by}'s claim on ${r.handle}; its reminders and escalation go on`;
}
