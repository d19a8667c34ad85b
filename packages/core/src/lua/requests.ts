import { z } from 'zod';
import { nulFreeText } from '../store/nul-free.js';
import { canonical, canonicalHash, hashText } from './canonical-hash.js';

/**
 * What a workflow asks of the host. Each effectful host function yields one of these; the
 * scheduler fulfils it under the thread's next call key and resumes the thread with the result.
 */

export const RunOptionsSchema = z.strictObject({
  prompt: z.string().optional(),
  model: z.string().optional(),
  human: z.boolean().optional(),
  timeout: z.number().positive().optional(),
  statuses: z.array(z.string()).optional(),
  /** At most this much for the call (Claude's --max-budget-usd); within the run's budget_usd. */
  budget_usd: z.number().positive().optional(),
  /** Attempts after the first when the agent fails transiently (overloaded, rate limit, network); config{retries} otherwise. */
  retries: z.number().int().min(0).max(10).optional(),
});
export type RunOptions = z.infer<typeof RunOptionsSchema>;

export const ShOptionsSchema = z.strictObject({
  timeout: z.number().positive().optional(),
  cwd: z.string().min(1).optional(),
});
export type ShOptions = z.infer<typeof ShOptionsSchema>;

export { PauseSpecSchema, type PauseSpec } from '../decisions/decision-spec.js';
import type { PauseSpec } from '../decisions/decision-spec.js';

export { parseConfig, WorkflowConfigSchema, type WorkflowConfig } from './workflow-config.js';

export type ShRequest = { type: 'sh'; cmd: string | null; argv: string[] | null; opts: ShOptions };

export type HostRequest =
  | { type: 'run'; agent: string; prompt: string | null; opts: RunOptions }
  | { type: 'pause'; spec: PauseSpec }
  | ShRequest
  | { type: 'now' }
  | { type: 'patched'; id: string }
  | { type: 'parallel'; branches: number }
  | { type: 'stuck'; reason: string };

/** A request that becomes a recorded call (stuck() ends the run instead). */
export type CallRequest = Exclude<HostRequest, { type: 'stuck' }>;

const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The call as a person reads it in a non-determinism error or `shop log`. */
export function describeCall(req: CallRequest): string {
  switch (req.type) {
    case 'run':
      return `run("${req.agent}")`;
    case 'pause':
      return `pause("${clip(req.spec.message)}")`;
    case 'sh':
      return `sh("${clip(req.cmd ?? req.argv!.join(' '))}")`;
    case 'now':
      return 'now()';
    case 'patched':
      return `patched("${req.id}")`;
    case 'parallel':
      return `parallel(${req.branches} branches)`;
  }
}

/**
 * The recorded identity of a call, compared on replay: the call as read, plus a hash of
 * everything that shapes its effect (a run's prompt and options, a pause's decision spec,
 * a command and its options).
 */
export function fingerprint(req: CallRequest): string {
  const described = describeCall(req);
  switch (req.type) {
    case 'run':
      // The canonical form of { opts, prompt }, built directly: this runs for every replayed call.
      return `${described} #${hashText(`{"opts":${canonical(req.opts)},"prompt":${JSON.stringify(req.prompt)}}`)}`;
    case 'pause':
      return `${described} #${canonicalHash(req.spec)}`;
    case 'sh':
      return `${described} #${canonicalHash({ cmd: req.cmd, argv: req.argv, opts: req.opts })}`;
    default:
      return described;
  }
}

/**
 * Whether a recorded fingerprint stands for this call. Runs recorded before fingerprints
 * carried a hash compare by what they recorded: kind and agent, message or command.
 */
export function matchesRecord(recorded: string, req: CallRequest, current = fingerprint(req)): boolean {
  // A store keeps a NUL in the call's text as U+FFFD (nul-free.ts): the call as it was recorded.
  if (recorded === current || recorded === nulFreeText(current)) return true;
  if (recorded.includes(' #')) return false;
  return recorded === legacyFingerprint(req);
}

function legacyFingerprint(req: CallRequest): string {
  if (req.type === 'pause') return `pause("${req.spec.message}")`;
  if (req.type === 'sh') return `sh("${req.cmd ?? ''}")`;
  return describeCall(req);
}

export { describeIssues } from './issues.js';
