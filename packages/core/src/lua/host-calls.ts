import { describeIssues, PauseSpecSchema, RunOptionsSchema, ShOptionsSchema, type HostRequest } from './requests.js';

/** The host functions that become recorded calls (or end the run: stuck). */
export const HOST_CALLS = ['run', 'pause', 'sh', 'now', 'patched', 'stuck'] as const;
export type HostCallName = (typeof HOST_CALLS)[number];

const ARITY: Record<HostCallName, { max: number; usage: string; hint?: string }> = {
  run: { max: 2, usage: 'run(agent [, prompt | opts])', hint: '; give the prompt in opts to give both: run("coder", {prompt = "…", timeout = 60})' },
  pause: { max: 1, usage: 'pause(message | spec)' },
  sh: { max: 2, usage: 'sh(cmd | argv [, opts])' },
  now: { max: 0, usage: 'now()' },
  patched: { max: 1, usage: 'patched(id)' },
  stuck: { max: 1, usage: 'stuck(reason)' },
};

/** Validates a host call's Lua arguments (already read as JS); a string is the error to raise in Lua. */
export function parseHostCall(name: HostCallName, args: unknown[]): HostRequest | string {
  // An argument past the last one a call takes would be ignored without a word (a timeout
  // given as run()'s third argument never applied): refused, like an unknown option.
  const given = args.length - [...args].reverse().findIndex((a) => a != null);
  if (args.some((a) => a != null) && given > ARITY[name].max) {
    const { usage, max, hint } = ARITY[name];
    return `${usage} takes at most ${max} argument${max === 1 ? '' : 's'}; got ${given}${hint ?? ''}`;
  }
  switch (name) {
    case 'run':
      return parseRun(args);
    case 'pause':
      return parsePause(args[0]);
    case 'stuck':
      return { type: 'stuck', reason: args[0] == null ? 'stuck' : String(args[0]) };
    case 'sh':
      return parseSh(args[0], args[1]);
    case 'now':
      return { type: 'now' };
    case 'patched':
      return typeof args[0] === 'string' && args[0] ? { type: 'patched', id: args[0] } : 'patched(id): id must be a non-empty string';
  }
}

function parseRun([agent, arg]: unknown[]): HostRequest | string {
  if (typeof agent !== 'string' || !agent) return 'run(agent [, prompt | opts]): agent must be a non-empty string';
  if (arg == null) return { type: 'run', agent, prompt: null, opts: {} };
  if (typeof arg === 'string') return { type: 'run', agent, prompt: arg, opts: {} };
  const parsed = RunOptionsSchema.safeParse(arg);
  if (!parsed.success) return `run("${agent}", opts): ${describeIssues(parsed.error)} (known: ${Object.keys(RunOptionsSchema.shape).join(', ')})`;
  return { type: 'run', agent, prompt: parsed.data.prompt ?? null, opts: parsed.data };
}

function parsePause(arg: unknown): HostRequest | string {
  const spec = typeof arg === 'string' ? { message: arg } : arg;
  const parsed = PauseSpecSchema.safeParse(spec);
  if (!parsed.success) return `pause(message | spec): ${describeIssues(parsed.error)}`;
  return { type: 'pause', spec: parsed.data };
}

function parseSh(cmd: unknown, opts: unknown): HostRequest | string {
  const usage = 'sh(cmd | argv [, {timeout, cwd}])';
  const parsed = ShOptionsSchema.safeParse(opts ?? {});
  if (!parsed.success) return `${usage}: ${describeIssues(parsed.error)}`;
  if (typeof cmd === 'string' && cmd) return { type: 'sh', cmd, argv: null, opts: parsed.data };
  if (Array.isArray(cmd) && cmd.length && cmd.every((a) => typeof a === 'string') && cmd[0]) {
    return { type: 'sh', cmd: null, argv: cmd as string[], opts: parsed.data };
  }
  return `${usage}: give a command string or a list of arguments ({"git", "status"})`;
}
