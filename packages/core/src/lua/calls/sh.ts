import { capText } from '../../text.js';
import { canonicalHash } from '../canonical-hash.js';
import { describeIssues } from '../issues.js';
import { clip, type CallDefinition } from './definition.js';
import { ShOptionsSchema, type ShRequest } from './sh-request.js';

const USAGE = 'sh(cmd | argv [, {timeout, cwd}])';
const commandOf = (req: ShRequest) => req.cmd ?? req.argv!.join(' ');

/** sh(cmd | argv [, opts]): a command in the run's workspace, run once and recorded. */
export const shCall: CallDefinition<ShRequest> = {
  name: 'sh',
  kind: 'sh',
  flow: 'call',
  usage: 'sh(cmd | argv [, opts])',
  max: 2,
  working: true,
  parse([cmd, opts]) {
    const parsed = ShOptionsSchema.safeParse(opts ?? {});
    if (!parsed.success) return `${USAGE}: ${describeIssues(parsed.error)}`;
    if (typeof cmd === 'string' && cmd) return { type: 'sh', cmd, argv: null, opts: parsed.data };
    if (Array.isArray(cmd) && cmd.length && cmd.every((a) => typeof a === 'string') && cmd[0]) {
      return { type: 'sh', cmd: null, argv: cmd as string[], opts: parsed.data };
    }
    return `${USAGE}: give a command string or a list of arguments ({"git", "status"})`;
  },
  describe: (req) => `sh("${clip(commandOf(req))}")`,
  fingerprint: (req) =>
    `sh("${clip(commandOf(req))}") #${canonicalHash({ cmd: req.cmd, argv: req.argv, opts: req.opts })}`,
  legacyFingerprint: (req) => `sh("${req.cmd ?? ''}")`,
  quoted: (req) => `sh(${JSON.stringify(capText(commandOf(req), 80))})`,
  difference(rec, req) {
    if (rec.kind !== 'sh' || rec.prompt !== commandOf(req)) return null;
    const was = rec.fingerprint.split(' #')[0];
    return [
      `${was} with options ${capText(JSON.stringify((rec.request as { opts?: unknown })?.opts ?? {}), 120)}`,
      `${was} with options ${capText(JSON.stringify(req.opts), 120)}`,
    ];
  },
  start: (world, key, req, rec, signal) =>
    world.once(
      key,
      req,
      rec,
      { kind: 'sh', fingerprint: shCall.fingerprint!(req), prompt: commandOf(req), watchFiles: true },
      () => world.ctx.ports.shell(req, world.ctx.run.workspace, signal),
      signal,
    ),
};
