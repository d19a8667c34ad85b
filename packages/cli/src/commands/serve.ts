import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { UsageError, quoted, refuseAgent, shippedFile } from '@shop/core';
import { startServer } from '@shop/web/server';
import { webOperations } from '@shop/web/web-operations';
import type { Context } from '../context.js';
import { errorLine } from '../error-line.js';
import { isWildcard, reachableUrls } from '../reachable-urls.js';
import type { CommandArgs } from '../registry.js';
import { backgroundResumer, resumeAnswered } from '../serve-resume.js';
import { printable } from '../style.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function portArg(args: CommandArgs<'serve'>): number {
  const raw = args.values.port;
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n > 65535)
    throw new UsageError(`--port ${quoted(raw)} is not a port number (0–65535; 0 picks a free one)`);
  return n;
}

/**
 * The web's static files: web/static, found walking up from the compiled code or the bundle — in
 * a clone that is packages/web/static (reached from packages/), in the installed package its own.
 */
function staticDir(): string {
  return shippedFile(join('web', 'static'), import.meta.url);
}

/**
 * shop serve: the web inbox. This is the server's composition root: it opens the store, binds
 * core's operations to it and hands them to packages/web, which opens nothing itself.
 */
export default async function serve(args: CommandArgs<'serve'>, ctx: Context): Promise<number> {
  // Serving people is a person's act: inside an agent step, --public-url would let the agent
  // point every answer link the notifiers send at a site of its choosing, and collect them.
  refuseAgent(ctx.caller, 'shop serve', 'answers for people');
  const port = portArg(args);
  const host = args.values.host;
  if (!host || host.length > 255 || /[\s/]/.test(host))
    throw new UsageError(`--host ${quoted(host)} is not an address to listen on (such as 127.0.0.1 or 0.0.0.0)`);
  // Nothing printed by runs' progress here: the server never drives a run (shop resume does, in the background).
  const ops = await ctx.ops({ quiet: true });
  const given = args.values['public-url'];
  const url = given !== undefined ? await ops.setPublicUrl(given) : await ops.publicUrl();
  const log = (line: string) => process.stderr.write(printable(`${line}\n`));
  const resumeInBackground = backgroundResumer(ctx.project, ctx.env, log);
  const server = await startServer(
    {
      ops: webOperations(ops, ctx.env),
      publicUrl: url,
      resumeInBackground,
      staticDir: staticDir(),
      log,
      debug: ctx.env.SHOP_DEBUG === '1',
      machineErrorText: errorLine,
    },
    { host, port },
  );
  if (!LOOPBACK.has(host)) {
    log(
      `shop serve: warning: listening on ${host}, not only this machine; TLS is not built in — put a tunnel or a reverse proxy with https in front (README: From a browser or phone)`,
    );
  }
  await resumeAnswered(ops, resumeInBackground, log);
  // Bound to every interface, http://0.0.0.0:… is no address to open (nor to put in a login link): name the machine's own.
  const open = reachableUrls(host, server.port, networkInterfaces());
  const where = isWildcard(host)
    ? `${host} port ${server.port} (every address of this machine): open ${open.join(' or ')}`
    : server.url;
  ctx.out(`shop serve: listening on ${where}${url ? ` (public URL ${url})` : ''}`);
  ctx.out(`sign in with a personal link: shop access add <name>${url ? '' : ` --url ${open[0]}`}`);
  ctx.out('Ctrl-C or SIGTERM to stop');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
