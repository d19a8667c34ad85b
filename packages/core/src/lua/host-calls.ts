import { describeIssues, PauseSpecSchema, RunOptionsSchema, type HostRequest } from './requests.js';

/** Validates a yielding host call's Lua arguments; a string is the error to raise in Lua. */
export function parseHostCall(name: string, args: unknown[]): HostRequest | string {
  switch (name) {
    case 'run':
      return parseRun(args);
    case 'pause':
      return parsePause(args[0]);
    case 'stuck':
      return { type: 'stuck', reason: args[0] == null ? 'stuck' : String(args[0]) };
    case 'sh':
      return typeof args[0] === 'string' && args[0] ? { type: 'sh', cmd: args[0] } : 'sh(cmd): cmd must be a non-empty string';
    case 'now':
      return { type: 'now' };
    default:
      return `unknown host function ${name}`;
  }
}

function parseRun([agent, arg]: unknown[]): HostRequest | string {
  if (typeof agent !== 'string' || !agent) return 'run(agent [, prompt | opts]): agent must be a non-empty string';
  if (arg == null) return { type: 'run', agent, prompt: null, opts: {} };
  if (typeof arg === 'string') return { type: 'run', agent, prompt: arg, opts: {} };
  const parsed = RunOptionsSchema.safeParse(arg);
  if (!parsed.success) return `run("${agent}", opts): ${describeIssues(parsed.error)} (known: prompt, model, human, timeout, statuses)`;
  return { type: 'run', agent, prompt: parsed.data.prompt ?? null, opts: parsed.data };
}

function parsePause(arg: unknown): HostRequest | string {
  const spec = typeof arg === 'string' ? { message: arg } : arg;
  const parsed = PauseSpecSchema.safeParse(spec);
  if (!parsed.success) return `pause(message | spec): ${describeIssues(parsed.error)}`;
  return { type: 'pause', spec: parsed.data };
}
