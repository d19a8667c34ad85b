import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitCode, refuseAgent, shippedFile } from '@shop/core';
import { binDir, type Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

/** The SHOP_* variables of the caller's shell the demo passes on; the rest could point it elsewhere (a database, a clock). */
const KEPT = ['SHOP_USER', 'SHOP_DEBUG', 'SHOP_STANDIN_PACE_MS'];

/** One shown command: its arguments, the comment after it, the exit code it must end with. */
type Step = { args: string[]; note?: string; expect: number };

/**
 * shop demo: the feature workflow end to end in a new temp folder, each command shown and run
 * as a person would run it (this same binary, as a child), on the stand-in claude that ships
 * with Shop — never a real agent. Exit 0 when every step ended as it should, else 1 naming it.
 */
export default async function demo(_args: CommandArgs<'demo'>, ctx: Context): Promise<number> {
  refuseAgent(ctx.caller, 'shop demo', 'answers for a person');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'shop-demo-')));
  const env = demoEnv(ctx.env, dir);
  const shop = join(binDir, 'shop');
  ctx.out('(simulated agents: a stand-in for Claude Code that ships with Shop; nothing is spent)');

  /** Runs one command where everyone sees it (stdout and stderr are the demo's own); false when it ended otherwise than expected. */
  const show = (step: Step): boolean => {
    const comment = step.note ? `      # ${step.note}` : '';
    ctx.out(`\n$ shop ${step.args.map(shown).join(' ')}${comment}`);
    const r = spawnSync(process.execPath, [shop, ...step.args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (r.status === step.expect) return true;
    ctx.out(
      `shop demo: shop ${step.args[0]} exited ${r.status ?? r.signal}, not ${step.expect}; the project is in ${dir}`,
    );
    return false;
  };
  /** A command's --json output, read quietly (the id or handle to show next). */
  const query = <T>(...args: string[]): T =>
    JSON.parse(spawnSync(process.execPath, [shop, ...args, '--json'], { cwd: dir, env, encoding: 'utf8' }).stdout) as T;

  ctx.out(`\n$ cd ${dir}`);
  if (!show({ args: ['init'], expect: 0 })) return ExitCode.failed;
  if (!show({ args: ['test', 'feature'], note: 'workflows/feature.test.json: no agent, nobody asked', expect: 0 }))
    return ExitCode.failed;
  if (!show({ args: ['run', 'feature', 'add a login page'], note: 'exit 3: it waits for a person', expect: 3 }))
    return ExitCode.failed;
  const [{ id }] = query<{ id: number }[]>('list');
  if (!show({ args: ['inbox'], expect: 0 })) return ExitCode.failed;
  // By the ask's handle, as the hints show it: it lands on that ask or is refused, never on a newer one.
  const [{ handle }] = query<{ handle: string }[]>('inbox');
  if (!show({ args: ['approve', handle, '--message', 'ship it'], expect: 0 })) return ExitCode.failed;
  if (!show({ args: ['status', String(id)], expect: 0 })) return ExitCode.failed;
  if (!show({ args: ['log', String(id)], expect: 0 })) return ExitCode.failed;
  ctx.out(`\nThe project stays in ${dir}; try: cd ${dir} && shop list`);
  ctx.out(`Answer from a browser: shop serve there; in another terminal there, shop access add you prints your link`);
  return ExitCode.ok;
}

/** An argument as a shell would need it typed. */
const shown = (a: string) => (/^[\w./:@=-]+$/.test(a) ? a : `"${a.replace(/["\\$`]/g, '\\$&')}"`);

/** The children's environment: the caller's, without its SHOP_* settings, with the stand-in as claude. */
function demoEnv(from: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(from)) if (!k.startsWith('SHOP_') || KEPT.includes(k)) env[k] = v;
  env.SHOP_CLAUDE_BIN = shippedFile('scripts/claude-standin.mjs', import.meta.url);
  env.SHOP_USER ||= 'demo';
  // The stand-in streams a few events per step, this far apart, so progress shows.
  env.SHOP_STANDIN_PACE_MS ??= '250';
  // The simulated agents keep their sessions in the demo's folder, not in the person's ~/.claude.
  env.CLAUDE_CONFIG_DIR = join(dir, '.claude-config');
  return env;
}
